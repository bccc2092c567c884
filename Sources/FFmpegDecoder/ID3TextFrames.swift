import Foundation

/// The text frames of an ID3v2.3/v2.4 tag at the start of a file, each with all its values. libavformat keeps only
/// the first string of a frame, where libid3tag (MPD's reader) gives them all: ID3v2.4 separates several values
/// with NUL bytes (two artists in one `TPE1`). The inspector takes the values from here for the frames that have
/// several. Compressed and encrypted frames are skipped; unsynchronisation is undone.
enum ID3TextFrames {
    /// Frame ID → values, in the file's order. Empty when the file has no ID3v2 tag at its start.
    static func read(path: String) -> [String: [String]] {
        guard let tag = tag(path: path) else { return [:] }
        var frames = parse(version: tag.version, flags: tag.flags, body: tag.body)
        // A tag without a single frame (ffmpeg writes one, all padding) is as good as none.
        guard frames[frameCountKey] != nil else { return [:] }
        frames[versionKey] = [String(tag.version)]
        return frames
    }

    /// The ID3v2.3/v2.4 tag at the start of the file at `path`: its major version, its flags and the bytes after
    /// its 10-byte header (at most 16 MiB; fewer when the file ends first). nil when there is none.
    static func tag(path: String) -> (version: UInt8, flags: UInt8, body: [UInt8])? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 10), header.count == 10 else { return nil }
        let head = [UInt8](header)
        guard head[0] == 0x49, head[1] == 0x44, head[2] == 0x33, head[3] == 3 || head[3] == 4 else { return nil }
        let size = syncsafe(head[6..<10])
        guard size > 0, size <= 16 << 20, let body = try? handle.read(upToCount: size) else { return nil }
        return (head[3], head[5], [UInt8](body))
    }

    /// Pseudo frames in `parse`'s and `read`'s answer: the tag's major version (`3` or `4`), and the number of
    /// frames of any kind (absent when there are none).
    static let versionKey = "version", frameCountKey = "frames"
    /// Present when the tag has a frame MPD takes a tag from (text, comment, MusicBrainz id), not only pictures.
    static let taggingKey = "tagging"

    static func parse(version: UInt8, flags: UInt8, body: [UInt8]) -> [String: [String]] {
        var frames: [String: [String]] = [:]
        forEachFrame(version: version, flags: flags, body: body) { name, format, frame in
            frames[frameCountKey] = [String((frames[frameCountKey]?.first).flatMap { Int($0) }.map { $0 + 1 } ?? 1)]
            if name.hasPrefix("T") || name == "COMM" || name == "UFID" { frames[taggingKey] = ["1"] }
            guard name.hasPrefix("T"), name != "TXXX" else { return }
            var content = Array(frame)
            if version == 4 {
                if format & 0x0C != 0 { return }  // compressed or encrypted
                if format & 0x02 != 0 { content = resynchronised(content) }
                if format & 0x01 != 0 { content = Array(content.dropFirst(4)) }  // data length indicator
            }
            let values = strings(content)
            if !values.isEmpty { frames[name, default: []] += values }
        }
        return frames
    }

    /// Calls `visit` with each frame of a tag's `body` in the file's order: its ID, its second flag byte (the
    /// format flags) and its content as stored. A v2.3 tag's unsynchronisation is undone first and an extended
    /// header skipped; a frame's own flags (v2.4 unsynchronisation, data length indicator, grouping, compression,
    /// encryption) are the caller's to read. The walk ends at padding, at an ID that is not four capitals or
    /// digits, and at a frame that is empty or claims more bytes than the tag holds.
    static func forEachFrame(version: UInt8, flags: UInt8, body: [UInt8],
                             _ visit: (_ id: String, _ format: UInt8, _ content: ArraySlice<UInt8>) -> Void) {
        var data = body
        if version == 3, flags & 0x80 != 0 { data = resynchronised(data) }
        var index = 0
        if flags & 0x40 != 0, data.count >= 4 {
            // Extended header: v2.3 gives its size without these four bytes, v2.4 a synchsafe size with them.
            let size = version == 4 ? syncsafe(data[0..<4]) : Int(bigEndian: data[0..<4]) + 4
            index = size
        }
        while index + 10 <= data.count {
            let id = data[index..<index + 4]
            guard id.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) }) else { break }
            let size = version == 4 ? syncsafe(data[index + 4..<index + 8]) : Int(bigEndian: data[index + 4..<index + 8])
            let format = data[index + 9]
            let start = index + 10
            index = start + size
            guard size > 0, index <= data.count else { break }
            visit(String(decoding: id, as: UTF8.self), format, data[start..<index])
        }
    }

    /// A text frame's strings: its encoding byte, then strings separated by NUL (two NUL bytes in UTF-16).
    static func strings(_ content: [UInt8]) -> [String] {
        guard let encoding = content.first else { return [] }
        let bytes = content.dropFirst()
        var values: [String] = []
        switch encoding {
        case 1, 2:
            var units: [UInt16] = []
            var index = bytes.startIndex
            var bigEndian = encoding == 2
            func flush() {
                var text = units
                if let bom = text.first, bom == 0xFEFF || bom == 0xFFFE { text.removeFirst() }
                values.append(String(decoding: text, as: UTF16.self))
                units = []
            }
            while index + 1 < bytes.endIndex {
                let unit = bigEndian ? UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
                                     : UInt16(bytes[index + 1]) << 8 | UInt16(bytes[index])
                index += 2
                if units.isEmpty, encoding == 1 {
                    if unit == 0xFEFF { units.append(unit); continue }
                    if unit == 0xFFFE { bigEndian.toggle(); units.append(0xFEFF); continue }
                }
                if unit == 0 { flush(); if encoding == 1 { bigEndian = false }; continue }
                units.append(unit)
            }
            if !units.isEmpty { flush() }
        default:
            for part in bytes.split(separator: 0, omittingEmptySubsequences: false) {
                values.append(encoding == 0 ? String(part.map { Character(Unicode.Scalar($0)) })
                                            : String(decoding: part, as: UTF8.self))
            }
        }
        return values.filter { !$0.isEmpty }
    }

    static func syncsafe(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 << 7 | Int($1 & 0x7F) }
    }

    /// Unsynchronisation undone: every `FF 00` becomes `FF`.
    static func resynchronised(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var previous: UInt8 = 0
        for byte in bytes {
            if !(previous == 0xFF && byte == 0x00) { result.append(byte) }
            previous = byte
        }
        return result
    }
}

private extension Int {
    init(bigEndian bytes: ArraySlice<UInt8>) {
        self = bytes.reduce(0) { $0 << 8 | Int($1) }
    }
}
