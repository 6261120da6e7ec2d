// What `import LeakDetector` brings: the core (snapshots, graphs, analyses, reports) it builds on.
@_exported import HeapGraph
