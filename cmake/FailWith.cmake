# cmake -DMESSAGE=... -P FailWith.cmake: a test that fails, saying why (a tier that cannot run).
message(FATAL_ERROR "${MESSAGE}")
