"""selfplay"""
