extension RetainCycle {
  /// The cycle as people write it, its module named nowhere (``NameStyle/readable(forTypeNames:)``):
  ///
  /// ```text
  /// FeedViewModel.onUpdate → closure #1 in FeedViewModel.bind(to:).capture #1: FeedViewModel → FeedViewModel
  /// ```
  public var readableDescription: String { NameStyle.readable(forTypeNames: elements.map(\.typeName)).cycle(self) }
}
