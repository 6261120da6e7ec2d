#include "ThreadLocalFixture.h"

_Thread_local void *threadLocalFixtureObject = 0;

void threadLocalFixtureSet(void *object) {
  threadLocalFixtureObject = object;
}

void *threadLocalFixtureGet(void) {
  return threadLocalFixtureObject;
}
