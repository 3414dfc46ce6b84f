"""Capacity at an objective: the most load each thread model carries within it, found by a staircase and a
bisection whose every point is judged beyond its own noise, with the wall named where it broke."""
