import Glibc
import MPDProtocol
import PlayerCore

/// What one of MPD's tag handlers collects from a scan, with its rules (`src/tag/Handler.cxx`, `Builder.cxx`):
/// `tag` is `AddTagHandler::OnTag` then `TagBuilder::AddItem` (Track and Disc reduced to their decimal digits
/// without leading zeroes, an empty value dropped, the value fixed by `FixTagString`), `pair` is `OnPair` (what
/// `readcomments` prints, unchanged).
struct TagScanResult {
    var tags: [Song.Tag] = []
    var pairs: [(key: String, value: String)] = []
    var duration: Double?
    var audioFormat: String?

    mutating func tag(_ name: String, _ value: some Collection<UInt8>) {
        if name == "Track" || name == "Disc" {
            // `NormalizeDecimal`: skip leading zeroes, stop at the first byte that is not a digit.
            let digits = value.drop { $0 == UInt8(ascii: "0") }.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            guard !digits.isEmpty else { return }
            tags.append(Song.Tag(name, String(decoding: digits, as: UTF8.self)))
            return
        }
        guard !value.isEmpty else { return }
        tags.append(Song.Tag(name, Song.Tag.text(value)))
    }

    /// A value kept as `ByteText` (its bytes as the file has them).
    mutating func tag(_ name: String, _ value: String) { tag(name, ByteText.encode(value.utf8)) }

    /// A pair keeps its bytes (`readcomments` prints them as the file has them, invalid UTF-8 included).
    mutating func pair(_ key: some Collection<UInt8>, _ value: some Collection<UInt8>) {
        pairs.append((ByteText.decode(key), ByteText.decode(value)))
    }

    mutating func pair(_ key: String, _ value: String) { pairs.append((key, value)) }

    /// MPD's `SongTime::FromScale`: whole milliseconds, truncated.
    static func duration(samples: UInt64, rate: UInt64) -> Double? {
        guard rate > 0 else { return nil }
        return Double(samples.multipliedReportingOverflow(by: 1000).overflow
                      ? samples / rate * 1000 : samples * 1000 / rate) / 1000
    }
}

/// A file read at offsets (`pread`), as MPD's `InputStream` is read for tags: a seek and a read of an exact length,
/// which fails when the file is shorter.
final class TagFile {
    let descriptor: Int32
    let size: UInt64

    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        size = UInt64(info.st_size)
    }

    deinit { close(descriptor) }

    /// Exactly `count` bytes at `offset`, or nil (`ReadFull` throws).
    func read(at offset: UInt64, count: Int) -> [UInt8]? {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { return nil }
            done += got
        }
        return bytes
    }
}

extension Array where Element == UInt8 {
    func littleEndian32(at index: Int) -> UInt32 {
        UInt32(self[index]) | UInt32(self[index + 1]) << 8 | UInt32(self[index + 2]) << 16 | UInt32(self[index + 3]) << 24
    }

    func bigEndian32(at index: Int) -> UInt32 {
        UInt32(self[index]) << 24 | UInt32(self[index + 1]) << 16 | UInt32(self[index + 2]) << 8 | UInt32(self[index + 3])
    }
}
