"""Loops nested 1 to 5 deep (sstad reads this source)."""
import numpy as np
def nest1(x):
    s = 0.0
    for a in range(2):
        s = s + np.sin(x * s)
    return s
def nest2(x):
    s = 0.0
    for a in range(2):
        for b in range(2):
            s = s + np.sin(x * s)
    return s
def nest3(x):
    s = 0.0
    for a in range(2):
        for b in range(2):
            for c in range(2):
                s = s + np.sin(x * s)
    return s
def nest4(x):
    s = 0.0
    for a in range(2):
        for b in range(2):
            for c in range(2):
                for d in range(2):
                    s = s + np.sin(x * s)
    return s
def nest5(x):
    s = 0.0
    for a in range(2):
        for b in range(2):
            for c in range(2):
                for d in range(2):
                    for e in range(2):
                        s = s + np.sin(x * s)
    return s
