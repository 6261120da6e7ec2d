@_exported import LeakDetector
