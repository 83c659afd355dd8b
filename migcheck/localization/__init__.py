"""localization"""
