// A library a user might preload, for stapio_drain_test: stapio_drain.so must leave it in
// LD_PRELOAD for the traced program. It does nothing.
int stapio_drain_test_user_preload;
