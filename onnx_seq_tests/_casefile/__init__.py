"""_casefile"""
