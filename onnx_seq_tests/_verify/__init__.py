"""_verify"""
