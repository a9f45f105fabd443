# Unit tests for iotap iotime and top (issue 4).
