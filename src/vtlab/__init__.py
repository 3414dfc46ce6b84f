"""vtlab: what really happens when a blocking Spring Boot service flips to virtual threads."""

__version__ = "0.1.0"
