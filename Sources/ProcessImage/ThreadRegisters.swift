/// The registers of one thread of another process, as it stopped (live) or as the core recorded
/// them (`NT_PRSTATUS`): x86-64's `struct user_regs_struct`.
///
/// Every general-purpose register may hold the only reference to an object, so a conservative
/// scan reads them all, in ``generalPurpose``.
///
/// ```swift
/// for thread in image.threads {
///   print(thread.threadID, thread.name ?? "?", String(thread.instructionPointer, radix: 16))
/// }
/// ```
/// ```text
/// 4242 fixture 401a2c
/// ```
public struct ThreadRegisters: Sendable, Equatable {
  public let threadID: Int32
  /// `rip`.
  public let instructionPointer: UInt
  /// `rsp`.
  public let stackPointer: UInt
  /// `rbp`.
  public let framePointer: UInt
  /// The base of the thread's thread-local storage (`fs_base`).
  public let fsBase: UInt
  /// The 27 words of `user_regs_struct`, in its order (``registerNames``): `r15` … `rax`, `rip`,
  /// `rsp`, `fs_base`, the segment registers.
  public let generalPurpose: [UInt]
  /// The thread's name (`/proc/PID/task/TID/comm`) when live; `nil` in a core.
  public let name: String?

  /// The names of the words of ``generalPurpose``, in `user_regs_struct`'s order.
  public static let registerNames = [
    "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs",
    "eflags", "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs",
  ]

  /// The registers of `threadID` from the words of a `user_regs_struct` (fewer than 27 words
  /// read as zeros for the missing ones).
  public init(threadID: Int32, userRegisters words: [UInt], name: String?) {
    let words = words.count >= Self.registerNames.count ? words : words + Array(repeating: 0, count: Self.registerNames.count - words.count)
    self.threadID = threadID
    self.generalPurpose = words
    self.instructionPointer = words[16]
    self.stackPointer = words[19]
    self.framePointer = words[4]
    self.fsBase = words[21]
    self.name = name
  }

  /// The value of the register named `name` (`"rax"`), if it is one of ``registerNames``.
  public subscript(name: String) -> UInt? {
    Self.registerNames.firstIndex(of: name).map { generalPurpose[$0] }
  }
}
