import Foundation
import PlayerCore

/// The text items of an APEv2 tag at the end of a file (before an ID3v1 tag, if any), in the file's order, as MPD's
/// `tag_ape_scan2` reads them. libavformat reads APE tags only in the containers that carry them (WavPack, Monkey's
/// Audio); MPD reads them in any file whose decoder found no tags, MP3 included.
enum APETags {
    /// Key → value (several values NUL-separated, as in the file); empty without a tag.
    static func read(path: String) -> [(key: String, value: String)] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        guard let end = try? handle.seekToEnd(), end >= 32 else { return [] }
        // An ID3v1 tag ("TAG", 128 bytes) may follow the APE tag.
        var footerEnd = end
        if end >= 128 + 32, (try? handle.seek(toOffset: end - 128)) != nil,
           let v1 = try? handle.read(upToCount: 3), v1 == Data("TAG".utf8) {
            footerEnd = end - 128
        }
        guard (try? handle.seek(toOffset: footerEnd - 32)) != nil, let footerData = try? handle.read(upToCount: 32),
              footerData.count == 32 else { return [] }
        let footer = [UInt8](footerData)
        guard footer[0..<8].elementsEqual("APETAGEX".utf8) else { return [] }
        let size = Int(littleEndian: footer[12..<16])
        let count = Int(littleEndian: footer[16..<20])
        // `size` counts the items and the footer, not a header.
        guard size >= 32, size <= 1 << 20, UInt64(size) <= footerEnd,
              (try? handle.seek(toOffset: footerEnd - UInt64(size))) != nil,
              let itemData = try? handle.read(upToCount: size - 32), itemData.count == size - 32 else { return [] }
        return items([UInt8](itemData), count: count)
    }

    static func items(_ data: [UInt8], count: Int) -> [(key: String, value: String)] {
        var result: [(key: String, value: String)] = []
        var index = 0
        for _ in 0..<min(count, 10_000) {
            guard index + 8 < data.count else { break }
            let length = Int(littleEndian: data[index..<index + 4])
            let flags = Int(littleEndian: data[index + 4..<index + 8])
            index += 8
            guard let keyEnd = data[index...].firstIndex(of: 0) else { break }
            let key = String(decoding: data[index..<keyEnd], as: UTF8.self)
            index = keyEnd + 1
            guard length >= 0, index + length <= data.count else { break }
            // Only UTF-8 text items (type 0); binary and external ones are skipped.
            if (flags >> 1) & 0x03 == 0 {
                result.append((key, data[index..<index + length].withUnsafeBytes { Song.Tag.text($0) }))
            }
            index += length
        }
        return result
    }
}

extension Int {
    /// A little-endian unsigned 32-bit number from four bytes.
    fileprivate init(littleEndian bytes: ArraySlice<UInt8>) {
        self = bytes.reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
