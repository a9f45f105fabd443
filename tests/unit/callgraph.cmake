# Unit tests for iotap callgraph (issue 4).
