import ArgumentParser
import HeapGraph
import LeakDetector
import ProcessImage

#if canImport(Glibc)
  import Glibc
#endif

/// How a command reads a core file where it takes a snapshot (and `capture`, a process): where
/// the binaries it names are when they were moved.
struct CoreFileOptions: ParsableArguments {
  @Option(
    name: .customLong("binaries"),
    help: ArgumentHelp(
      "A directory that holds the binaries a core file names (the program and its libraries), when they are no longer where the core says; may be repeated.",
      valueName: "directory"))
  var binaryDirectories: [String] = []

  /// The memory image of `target`: a process id (stopped while it is copied) or a core file.
  func memoryImage(of target: String) throws(InputFailure) -> MemoryImage {
    let image: ProcessImage
    do {
      if let processID = Int32(target), processID > 0 {
        image = try ProcessImage.capture(processID: processID)
      } else if ProcessImage.isCoreFile(target) {
        image = try ProcessImage.read(coreFile: target, binaryDirectories: binaryDirectories)
      } else {
        throw InputFailure(message: "\(target): neither a process id nor an ELF core file")
      }
    } catch let failure as ProcessImageFailure {
      throw InputFailure(message: failure.description)
    } catch let failure as InputFailure {
      throw failure
    } catch {
      throw InputFailure(message: "\(target): \(error)")
    }
    return MemoryImage(image, binaryDirectories: binaryDirectories)
  }
}

extension MemoryImage {
  /// The image of `image`, which it keeps alive for the process's life (its segments' bytes are
  /// the image's).
  init(_ image: ProcessImage, binaryDirectories: [String]) {
    Self.kept.append(image)
    let segments = image.segments.map { segment in
      MemoryImage.Segment(
        start: segment.start, end: segment.end, bytes: segment.contents?.baseAddress, isWritable: segment.isWritable,
        isExecutable: segment.isExecutable, path: segment.path,
        localFile: segment.path.flatMap { Self.localFile(for: $0, in: binaryDirectories, origin: image.origin) },
        fileOffset: segment.fileOffset, isSparseCopy: image.origin == .process(image.processID) && segment.isWritable)
    }
    let threads = image.threads.map { thread in
      MemoryImage.Thread(
        id: thread.threadID, name: thread.name, stackPointer: thread.stackPointer, threadPointer: thread.fsBase,
        registers: thread.generalPurpose)
    }
    self.init(
      processID: image.processID, arguments: image.commandLine, segments: segments, threads: threads,
      pauseMilliseconds: image.pauseDuration.map { Int(($0 / .milliseconds(1)).rounded()) }, notes: image.diagnostics)
  }

  /// The process images whose bytes the installed image reads.
  nonisolated(unsafe) private static var kept: [ProcessImage] = []

  /// Where the file a process mapped at `path` can be read here: in one of `directories` by its
  /// name (the binaries were moved); for a running process, through its root (`/proc/PID/root`,
  /// which is its own file even when it runs in another container); else where it was; `nil` for
  /// pseudo-paths and missing files.
  private static func localFile(for path: String, in directories: [String], origin: ProcessImage.Origin) -> String? {
    guard path.hasPrefix("/") else { return nil }
    let name = path.split(separator: "/").last.map(String.init) ?? path
    for directory in directories where access("\(directory)/\(name)", R_OK) == 0 { return "\(directory)/\(name)" }
    if case .process(let processID) = origin, access("/proc/\(processID)/root\(path)", R_OK) == 0 {
      return "/proc/\(processID)/root\(path)"
    }
    return access(path, R_OK) == 0 ? path : nil
  }
}
