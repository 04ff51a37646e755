"""cutlass"""
