# Unit tests for iotap latency (issue 4).
