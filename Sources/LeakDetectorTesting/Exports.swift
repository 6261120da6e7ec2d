// What `import LeakDetectorTesting` brings: the live detector and tracker, and through them the core.
@_exported import LeakDetector
