"""The hardware backend without a testbed: the 2001 report's measurements as runs (`runs`)."""
