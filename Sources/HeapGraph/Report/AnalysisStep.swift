/// The stages of an analysis, reported to a progress callback so that long runs can show
/// where they are.
public enum AnalysisStep: Sendable, Hashable {
  /// Splitting the graph into strongly connected components.
  case findingComponents
  /// Enumerating cycles; `completed` of `total` components are done.
  case searchingComponents(completed: Int, total: Int)
  /// Finding leaked objects, survivors and retained sizes.
  case findingLeaks
}
