// A thread-local variable of C, for the tests that name a thread-local holder by its variable
// (Swift has no thread-local variables of its own; C and C++ libraries do).
#pragma once

/// Stores `object` (a retained object pointer, or NULL) in the calling thread's
/// `threadLocalFixtureObject`.
void threadLocalFixtureSet(void *object);

/// The calling thread's `threadLocalFixtureObject`.
void *threadLocalFixtureGet(void);
