import Foundation
import PlayerCore

/// A fresh directory under /tmp for one test, removed by the caller with `cleanUp()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("nosignal-outputs-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func cleanUp() { try? FileManager.default.removeItem(at: url) }
}

/// Deterministic PCM bytes: whole frames of `format`, a different byte pattern per frame, so that a lost,
/// repeated or shifted chunk shows up in a byte comparison.
func testPCM(_ format: AudioFormat, frames: Int, seed: UInt32 = 1) -> [UInt8] {
    var state = seed &* 2_654_435_761 &+ 12345
    var bytes = [UInt8]()
    bytes.reserveCapacity(frames * format.bytesPerFrame)
    for _ in 0..<(frames * format.bytesPerFrame) {
        state = state &* 1_103_515_245 &+ 12345
        bytes.append(UInt8(truncatingIfNeeded: state >> 16))
    }
    return bytes
}

/// Splits `bytes` into chunks of whole frames of varying sizes.
func frameChunks(_ bytes: [UInt8], frameSize: Int, sizesInFrames: [Int]) -> [ArraySlice<UInt8>] {
    var chunks: [ArraySlice<UInt8>] = []
    var offset = 0
    var index = 0
    while offset < bytes.count {
        let size = min(sizesInFrames[index % sizesInFrames.count] * frameSize, bytes.count - offset)
        chunks.append(bytes[offset..<(offset + size)])
        offset += size
        index += 1
    }
    return chunks
}

func readFile(_ path: String) -> [UInt8] {
    (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
}

/// Where two byte sequences first differ (nil when equal), so that a failing comparison reports a position and
/// not a megabyte of numbers.
func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> String? {
    if a == b { return nil }
    if let index = zip(a.indices, b.indices).first(where: { a[$0.0] != b[$0.1] })?.0 {
        return "byte \(index) of \(a.count)/\(b.count)"
    }
    return a.count == b.count ? nil : "lengths \(a.count) and \(b.count)"
}
