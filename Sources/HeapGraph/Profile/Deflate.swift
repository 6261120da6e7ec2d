/// DEFLATE compression, as gzip and zlib hold it: LZ77 matches found through hash chains over a
/// 32 KiB window, coded with the fixed Huffman codes in one block; stored blocks (the bytes as
/// they are) when that would be smaller, as for data that does not repeat.
///
/// The fixed codes need no code tables in the output and no second pass over the data, at the
/// cost of a few percent against dynamic codes (`gzip -6`): a profile of repeated names and
/// small varints shrinks about as well. Every inflater reads both block types.
///
/// ```swift
/// let compressed = Deflate.compress(Array(String(repeating: "swift ", count: 1000).utf8))
/// print(compressed.count)
/// ```
/// ```text
/// 50
/// ```
package enum Deflate {
  /// The shortest match worth coding, the longest codable one, and the farthest back a match may start.
  private static let minimumMatch = 3
  private static let maximumMatch = 258
  private static let windowSize = 1 << 15
  /// How many earlier positions with the same three-byte hash are tried per position.
  private static let chainLimit = 48
  private static let hashBits = 15

  /// `bytes` compressed: one fixed-Huffman block, or stored blocks when those are smaller.
  package static func compress(_ bytes: [UInt8]) -> [UInt8] {
    let coded = fixedHuffmanBlock(bytes)
    return coded.count <= storedSize(of: bytes.count) ? coded : storedBlocks(bytes)
  }

  /// `bytes` in stored blocks of at most 65,535 bytes each, the last one marked final.
  package static func storedBlocks(_ bytes: [UInt8]) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(storedSize(of: bytes.count))
    var start = 0
    repeat {
      let end = min(start + 65_535, bytes.count)
      let length = UInt16(end - start)
      output.append(end == bytes.count ? 1 : 0)  // final flag, block type 0, padding to the byte
      output += [UInt8(truncatingIfNeeded: length), UInt8(length >> 8), UInt8(truncatingIfNeeded: ~length), UInt8(~length >> 8)]
      output += bytes[start..<end]
      start = end
    } while start < bytes.count
    return output
  }

  /// The size of `count` bytes in stored blocks: five bytes of header per block.
  private static func storedSize(of count: Int) -> Int {
    count + 5 * max(1, (count + 65_534) / 65_535)
  }

  /// `bytes` as one final block with the fixed Huffman codes: literals, and matches of 3 to 258
  /// bytes found through hash chains (the first longest match within ``chainLimit`` tries).
  package static func fixedHuffmanBlock(_ bytes: [UInt8]) -> [UInt8] {
    var output = DeflateBitWriter(reservingCapacity: bytes.count / 2 + 16)
    output.write(1, count: 1)  // the final block
    output.write(1, count: 2)  // fixed codes
    let count = bytes.count
    var head = [Int32](repeating: -1, count: 1 << hashBits)
    var previous = [Int32](repeating: -1, count: windowSize)
    let windowMask = windowSize - 1
    bytes.withUnsafeBufferPointer { input in
      head.withUnsafeMutableBufferPointer { head in
        previous.withUnsafeMutableBufferPointer { previous in
          @inline(__always) func hash(at position: Int) -> Int {
            let word = UInt32(input[position]) | UInt32(input[position + 1]) << 8 | UInt32(input[position + 2]) << 16
            return Int((word &* 2_654_435_761) >> UInt32(32 - hashBits))
          }
          @inline(__always) func insert(_ position: Int) {
            let slot = hash(at: position)
            previous[position & windowMask] = head[slot]
            head[slot] = Int32(position)
          }
          var position = 0
          while position < count {
            var bestLength = 0
            var bestDistance = 0
            if position + minimumMatch <= count {
              let longest = min(maximumMatch, count - position)
              var candidate = Int(head[hash(at: position)])
              var tries = 0
              while candidate >= 0, position - candidate <= windowSize, tries < chainLimit {
                if input[candidate + bestLength] == input[position + bestLength] {
                  var length = 0
                  while length < longest && input[candidate + length] == input[position + length] { length += 1 }
                  if length > bestLength {
                    bestLength = length
                    bestDistance = position - candidate
                    if length == longest { break }
                  }
                }
                let next = Int(previous[candidate & windowMask])
                guard next < candidate else { break }
                candidate = next
                tries += 1
              }
              insert(position)
            }
            if bestLength >= minimumMatch {
              writeMatch(length: bestLength, distance: bestDistance, to: &output)
              for skipped in (position + 1)..<(position + bestLength) where skipped + minimumMatch <= count { insert(skipped) }
              position += bestLength
            } else {
              let code = literalCodes[Int(input[position])]
              output.write(UInt32(code.bits), count: Int(code.count))
              position += 1
            }
          }
        }
      }
    }
    let end = literalCodes[256]
    output.write(UInt32(end.bits), count: Int(end.count))
    output.alignToByte()
    return output.bytes
  }

  /// A match: its length's code and extra bits, then its distance's.
  @inline(__always)
  private static func writeMatch(length: Int, distance: Int, to output: inout DeflateBitWriter) {
    let lengthIndex = Int(lengthCodeIndex[length])
    let lengthCode = literalCodes[257 + lengthIndex]
    output.write(UInt32(lengthCode.bits), count: Int(lengthCode.count))
    let lengthExtra = lengthExtraBits[lengthIndex]
    if lengthExtra > 0 { output.write(UInt32(length - Int(lengthBases[lengthIndex])), count: Int(lengthExtra)) }
    let distanceIndex = Int(distance <= 256 ? distanceCodeIndex[distance - 1] : distanceCodeIndex[256 + (distance - 1) >> 7])
    output.write(UInt32(reversed(UInt32(distanceIndex), count: 5)), count: 5)
    let distanceExtra = distanceExtraBits[distanceIndex]
    if distanceExtra > 0 { output.write(UInt32(distance - Int(distanceBases[distanceIndex])), count: Int(distanceExtra)) }
  }

  /// The fixed code of each literal/length symbol (0–287), bits reversed for writing: 8 bits for
  /// 0–143, 9 for 144–255, 7 for 256–279, 8 for 280–287.
  private static let literalCodes: [(bits: UInt16, count: UInt8)] = (0..<288).map { symbol in
    let (code, count): (UInt32, Int) =
      switch symbol {
      case 0..<144: (0x30 + UInt32(symbol), 8)
      case 144..<256: (0x190 + UInt32(symbol - 144), 9)
      case 256..<280: (UInt32(symbol - 256), 7)
      default: (0xC0 + UInt32(symbol - 280), 8)
      }
    return (UInt16(reversed(code, count: count)), UInt8(count))
  }

  /// The first length of each length code (257–285), and its extra bits.
  private static let lengthBases: [UInt16] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
  ]
  private static let lengthExtraBits: [UInt8] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
  ]
  /// The first distance of each distance code (0–29), and its extra bits.
  private static let distanceBases: [UInt16] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
    8193, 12289, 16385, 24577,
  ]
  private static let distanceExtraBits: [UInt8] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
  ]

  /// The length code (as an index into ``lengthBases``) of each match length, 0 for lengths below 3.
  private static let lengthCodeIndex: [UInt8] = (0...maximumMatch).map { length in
    guard length >= minimumMatch else { return 0 }
    return UInt8(lengthBases.lastIndex { Int($0) <= length }!)
  }

  /// The distance code of distances 1–256 (at `distance - 1`), then of every 128 distances
  /// beyond (at `256 + (distance - 1) >> 7`): codes from 16 on cover multiples of 128.
  private static let distanceCodeIndex: [UInt8] = {
    func code(_ distance: Int) -> UInt8 { UInt8(distanceBases.lastIndex { Int($0) <= distance }!) }
    return (1...256).map(code) + (0..<256).map { code($0 << 7 + 1) }
  }()

  /// The low `count` bits of `code` in the opposite order.
  private static func reversed(_ code: UInt32, count: Int) -> UInt32 {
    var reversed: UInt32 = 0
    var code = code
    for _ in 0..<count {
      reversed = reversed << 1 | code & 1
      code >>= 1
    }
    return reversed
  }
}
