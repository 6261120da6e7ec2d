// A library with a `__thread` variable, loaded with `dlopen`: each thread's copy lives in a block
// from malloc (dynamic TLS), reached only through the thread's dynamic thread vector.
static __thread void *slot;

/// Keeps `object` (a raw pointer, not retained) in the calling thread's copy of the variable.
void dynamic_tls_keep(void *object) { slot = object; }
