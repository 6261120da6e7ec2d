import Testing
import Pets

@Test func timerLeaks() {
  let timer = Timerish()
  timer.start()
  timer.tick?()
  #expect(timer.ticks == 1)
}

@Test func timerWeakDoesNotLeak() {
  let timer = Timerish()
  timer.startSafely()
  timer.tick?()
  #expect(timer.ticks == 1)
}

@Test func asyncLeak() async {
  await Task.yield()
  let timer = Timerish()
  timer.start()
  #expect(timer.ticks == 0)
}
