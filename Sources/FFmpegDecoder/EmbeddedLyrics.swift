import CFFmpeg
import MPDProtocol
import PlayerCore

/// Lyrics stored in a file's tags, as found (the caller parses `text` as LRC when it has timestamps).
public enum EmbeddedLyrics: Sendable, Equatable {
    /// Unsynchronised text (ID3 `USLT`, Vorbis comment `LYRICS` or `UNSYNCEDLYRICS`, MP4 `©lyr`, APE `Lyrics`). It
    /// may itself be LRC text with [mm:ss.xx] stamps (many taggers store LRC there).
    case text(String)
    /// ID3 `SYLT` (synchronised lyrics): (milliseconds, text) in file order.
    case synchronized([Line])

    /// One line of an ID3 `SYLT` frame: when it starts (milliseconds from the start of the track) and its text,
    /// without the one new line taggers put in front of it.
    public struct Line: Sendable, Hashable {
        public var milliseconds: Int
        public var text: String

        public init(milliseconds: Int, text: String) {
            self.milliseconds = milliseconds
            self.text = text
        }
    }
}

extension FFmpegInspector {
    /// Every lyrics tag of the file at `path`, SYLT first (timed), then the texts; empty when none or unreadable.
    /// Never throws, never traps on damaged files.
    ///
    /// `SYLT` frames (in milliseconds; MPEG-frame stamps are skipped) come from the ID3v2.3/v2.4 tag at the start
    /// of the file, which libavformat does not expose. The texts come, in the file's order, from the Vorbis comments
    /// of FLAC and Ogg Vorbis/Opus files (read here, as the scan reads them: libavformat joins repeated keys with
    /// `;`), from libavformat's container and stream metadata for every other format (`USLT` as `lyrics-LANG` or
    /// `lyrics-DESCRIPTION-LANG`, MP4 `©lyr` and ID3 `TXXX:LYRICS` as `lyrics`, APEv2 in WavPack, Monkey's Audio,
    /// Musepack and TAK as `Lyrics`), and from an APEv2 tag at the end of any other file (libavformat reads none in
    /// MP3). Keys match case-insensitively: `lyrics`, `lyrics-*`, `unsyncedlyrics`, `unsynced lyrics`. A text
    /// that is empty or only white space, or that repeats one already found, is left out.
    public static func embeddedLyrics(path: String) -> [EmbeddedLyrics] {
        var texts: [String] = []
        func take(_ key: String, _ value: String) {
            guard isLyricsKey(key) else { return }
            for text in splitValues(value) where !text.allSatisfy(\.isWhitespace) && !texts.contains(text) {
                texts.append(text)
            }
        }
        var container = ""
        if let comments = VorbisComments.read(path: path) {
            for (key, value) in comments { take(key, Song.Tag.text(ByteText.encode(value.utf8))) }
        } else if let metadata = metadataForLyrics(path: path) {
            container = metadata.container
            for (key, value) in metadata.pairs { take(key, value) }
        }
        if !apeContainers.contains(container) {
            if let file = TagFile(path: path) {
                for item in APEScan.items(file) ?? [] where item.flags & (0x3 << 1) == 0 {
                    take(String(decoding: item.key, as: UTF8.self), Song.Tag.text(item.value))
                }
            }
        }
        return synchronizedLyrics(path: path).map(EmbeddedLyrics.synchronized) + texts.map(EmbeddedLyrics.text)
    }

    /// `lyrics`, `lyrics-*` (libavformat's names of ID3 `USLT` frames), `unsyncedlyrics`, `unsynced lyrics`.
    static func isLyricsKey(_ key: String) -> Bool {
        let lower = key.lowercased()
        return lower == "lyrics" || lower.hasPrefix("lyrics-") || lower == "unsyncedlyrics" || lower == "unsynced lyrics"
    }

    /// The container's name and its metadata then each stream's, as libavformat reads them when it opens the file
    /// (no stream probing: the tags are all in the headers). nil when libavformat cannot open it.
    static func metadataForLyrics(path: String) -> (container: String, pairs: [(String, String)])? {
        av_log_set_level(AV_LOG_QUIET)
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        guard avformat_open_input(&context, path, nil, nil) >= 0, let format = context else { return nil }
        defer { avformat_close_input(&context) }
        var pairs = Self.pairs(format.pointee.metadata)
        if let streams = format.pointee.streams {
            for index in 0..<Int(format.pointee.nb_streams) {
                guard let stream = streams[index] else { continue }
                pairs += Self.pairs(stream.pointee.metadata)
            }
        }
        let container = format.pointee.iformat.map { String(cString: $0.pointee.name) } ?? ""
        return (container, pairs)
    }

    /// The lines of each `SYLT` frame with millisecond stamps in the ID3v2.3/v2.4 tag at the start of the file, in
    /// the file's order; frames without a single complete line are left out.
    static func synchronizedLyrics(path: String) -> [[EmbeddedLyrics.Line]] {
        guard let tag = ID3TextFrames.tag(path: path) else { return [] }
        var frames: [[EmbeddedLyrics.Line]] = []
        ID3TextFrames.forEachFrame(version: tag.version, flags: tag.flags, body: tag.body) { id, format, stored in
            guard id == "SYLT",
                  let content = id3FrameContent(stored, format: format, version: tag.version, tagFlags: tag.flags)
            else { return }
            let lines = synchronizedLines(content)
            if !lines.isEmpty { frames.append(lines) }
        }
        return frames
    }

    /// A frame's content with its own flags applied: nil when it is compressed or encrypted; v2.4 unsynchronisation
    /// undone (when the frame or the whole tag says so, as mutagen reads it), the grouping byte and the data length
    /// indicator dropped.
    static func id3FrameContent(_ stored: ArraySlice<UInt8>, format: UInt8, version: UInt8,
                                tagFlags: UInt8) -> [UInt8]? {
        var content = Array(stored)
        var skip = 0
        if version == 4 {
            guard format & 0x0C == 0 else { return nil }  // compressed or encrypted
            if format & 0x02 != 0 || tagFlags & 0x80 != 0 { content = ID3TextFrames.resynchronised(content) }
            if format & 0x40 != 0 { skip += 1 }  // group identifier
            if format & 0x01 != 0 { skip += 4 }  // data length indicator
        } else {
            guard format & 0xC0 == 0 else { return nil }  // compressed or encrypted
            if format & 0x20 != 0 { skip += 1 }  // group identifier
        }
        guard content.count >= skip else { return nil }
        return Array(content.dropFirst(skip))
    }

    /// The lines of a `SYLT` frame's content (ID3v2.4 §4.9): text encoding, language (3 bytes), time stamp format,
    /// content type, a content descriptor, then text (terminated) and a 32-bit big-endian time stamp per line. Only
    /// millisecond stamps (format 2) are read; a line cut short by the frame's end is left out, with what follows.
    static func synchronizedLines(_ content: [UInt8]) -> [EmbeddedLyrics.Line] {
        guard content.count >= 6, content[0] <= 3, content[4] == 2 else { return [] }
        var reader = ID3StringReader(bytes: content, index: 6, encoding: content[0])
        guard reader.next() != nil else { return [] }  // the content descriptor
        var lines: [EmbeddedLyrics.Line] = []
        while let text = reader.next(), let stamp = reader.uint32() {
            lines.append(EmbeddedLyrics.Line(milliseconds: Int(stamp), text: withoutLeadingNewLine(text)))
        }
        return lines
    }

    /// `text` without one new line (LF, CR or CR LF) at its start: SYLT writers put one before each line.
    static func withoutLeadingNewLine(_ text: String) -> String {
        guard let first = text.first, first == "\n" || first == "\r" || first == "\r\n" else { return text }
        return String(text.dropFirst())
    }
}

/// Reads the terminated strings of an ID3 frame in one of its text encodings: ISO-8859-1 (0) and UTF-8 (3) end at
/// a 0x00 byte, UTF-16 with a byte order mark (1) and UTF-16BE (2) at two 0x00 bytes on a code unit boundary.
struct ID3StringReader {
    let bytes: [UInt8]
    var index: Int
    let encoding: UInt8
    /// UTF-16 without a byte order mark: as the frame's last mark said, else little-endian (encoding 1).
    var bigEndian: Bool

    init(bytes: [UInt8], index: Int, encoding: UInt8) {
        self.bytes = bytes
        self.index = index
        self.encoding = encoding
        bigEndian = encoding == 2
    }

    /// The next string and the position after its terminator; nil (the position unchanged) when no terminator
    /// follows.
    mutating func next() -> String? {
        guard index >= 0, index <= bytes.count else { return nil }
        if encoding == 1 || encoding == 2 {
            var end = index
            while end + 1 < bytes.count, bytes[end] != 0 || bytes[end + 1] != 0 { end += 2 }
            guard end + 1 < bytes.count else { return nil }
            let text = utf16(bytes[index..<end])
            index = end + 2
            return text
        }
        guard let end = bytes[index...].firstIndex(of: 0) else { return nil }
        let part = bytes[index..<end]
        index = end + 1
        if encoding == 0 { return String(String.UnicodeScalarView(part.map { Unicode.Scalar($0) })) }
        return Song.Tag.text(part)
    }

    /// A 32-bit big-endian number, or nil when fewer than four bytes are left.
    mutating func uint32() -> UInt32? {
        guard index >= 0, bytes.count - index >= 4 else { return nil }
        let value = bytes[index..<index + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        index += 4
        return value
    }

    private mutating func utf16(_ part: ArraySlice<UInt8>) -> String {
        var start = part.startIndex
        if part.count >= 2 {
            let first = part[start], second = part[start + 1]
            if first == 0xFE, second == 0xFF {
                bigEndian = true
                start += 2
            } else if first == 0xFF, second == 0xFE, encoding == 1 {
                bigEndian = false
                start += 2
            }
        }
        var units: [UInt16] = []
        units.reserveCapacity((part.endIndex - start) / 2)
        var position = start
        while position + 1 < part.endIndex {
            let high = bigEndian ? part[position] : part[position + 1]
            let low = bigEndian ? part[position + 1] : part[position]
            units.append(UInt16(high) << 8 | UInt16(low))
            position += 2
        }
        return String(decoding: units, as: UTF16.self)
    }
}
