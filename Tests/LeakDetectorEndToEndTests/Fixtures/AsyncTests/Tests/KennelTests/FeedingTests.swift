import Kennel
import Testing

/// Starts a task that feeds a bowl from a stream, and drops the stream's continuation: nothing
/// can ever resume the task, which keeps the bowl.
@Test func forgottenFeedingLeaks() async {
  let (portions, _) = AsyncStream<Int>.makeStream()
  let bowl = Bowl()
  Task { for await portion in portions { bowl.portions += portion } }  // LEAK: waits for ever
  await Task.yield()
}
