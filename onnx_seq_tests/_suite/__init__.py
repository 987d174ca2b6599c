"""_suite"""
