"""emusim: one network experiment on hardware, in Mininet and in ns-3, and how far apart."""

__version__ = "0.1.0"
