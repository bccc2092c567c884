import Glibc
import MPDProtocol
import PlayerCore

/// Reads the Vorbis comments of FLAC and Ogg (Vorbis, Opus) files as stored: every `KEY=value` in file order,
/// repeated keys kept apart, names and values as `ByteText` (the file's bytes, invalid UTF-8 included). libavformat joins repeated keys with `;`, which would merge multi-valued tags, so
/// these formats are read here, as MPD's own FLAC/Vorbis/Opus plugins do (`src/lib/xiph/VorbisComments.cxx`).
enum VorbisComments {
    /// Which stream the comments came from: MPD reads each with another plugin and maps them by other rules.
    enum Kind: Equatable { case flac, vorbis, opus, oggFLAC(FLACHeader) }

    /// The comments of the file at `path`.
    static func read(path: String) -> [(key: String, value: String)]? { readWithKind(path: path)?.comments }

    /// nil when the file is not FLAC (an ID3v2 tag before it is passed over, as libFLAC does) or Ogg Vorbis, Opus or
    /// FLAC, or has no comment header.
    static func readWithKind(path: String) -> (kind: Kind, comments: [(key: String, value: String)])? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var magic = [UInt8](repeating: 0, count: 10)
        guard fread(&magic, 1, 10, file) == 10 else { return nil }
        var start = 0
        if magic[0..<3].elementsEqual("ID3".utf8), magic[6..<10].allSatisfy({ $0 < 0x80 }) {
            start = 10 + magic[6..<10].reduce(0) { $0 << 7 | Int($1) } + (magic[5] & 0x10 != 0 ? 10 : 0)
            guard fseek(file, start, SEEK_SET) == 0, fread(&magic, 1, 4, file) == 4 else { return nil }
        }
        if magic[0..<4].elementsEqual("fLaC".utf8) {
            fseek(file, start + 4, SEEK_SET)
            return readFLAC(file).map { (.flac, $0) }
        }
        if start == 0, magic[0..<4].elementsEqual("OggS".utf8) {
            fseek(file, 0, SEEK_SET)
            return readOgg(file)
        }
        return nil
    }

    static let limit = 16 << 20

    static func readBytes(_ file: UnsafeMutablePointer<FILE>, _ count: Int) -> [UInt8]? {
        guard count >= 0, count <= limit else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        guard count == 0 || fread(&bytes, 1, count, file) == count else { return nil }
        return bytes
    }

    /// What a FLAC file's metadata blocks say: STREAMINFO's facts and the Vorbis comments.
    struct FLACHeader: Equatable {
        var sampleRate: Int
        var channels: Int
        var bitsPerSample: Int
        var totalSamples: Int64
        var comments: [(key: String, value: String)]

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.sampleRate == rhs.sampleRate && lhs.channels == rhs.channels && lhs.bitsPerSample == rhs.bitsPerSample
                && lhs.totalSamples == rhs.totalSamples
        }
    }

    /// STREAMINFO (which the format requires as the first block) and the comments of a file that starts with
    /// `fLaC`, in one pass over the metadata blocks; nil for anything else or anything malformed, so the caller can
    /// fall back to libavformat. The scanner reads most FLAC files this way: opening them with libavformat
    /// (probing every demuxer on the first kilobytes, then reading the comments again here) costs many times more.
    static func readFLACHeader(path: String) -> FLACHeader? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        guard let magic = readBytes(file, 8), magic[0..<4].elementsEqual("fLaC".utf8),
              magic[4] & 0x7F == 0, Int(magic[5]) << 16 | Int(magic[6]) << 8 | Int(magic[7]) == 34,
              let info = readBytes(file, 34) else { return nil }
        var header = streamInfo(info[...])
        if magic[4] & 0x80 != 0 { return header }
        guard let comments = readFLAC(file) else { return nil }
        header.comments = comments
        return header
    }

    /// STREAMINFO's 34 bytes: 16 + 16 bits of block sizes, 24 + 24 of frame sizes, then 20 bits of sample rate, 3 of
    /// channels − 1, 5 of bits per sample − 1 and 36 of total samples.
    static func streamInfo(_ info: ArraySlice<UInt8>) -> FLACHeader {
        let info = Array(info)
        let sampleRate = Int(info[10]) << 12 | Int(info[11]) << 4 | Int(info[12]) >> 4
        let channels = Int((info[12] >> 1) & 0x07) + 1
        let bits = (Int(info[12] & 0x01) << 4 | Int(info[13] >> 4)) + 1
        var total = Int64(info[13] & 0x0F)
        for byte in info[14..<18] { total = total << 8 | Int64(byte) }
        return FLACHeader(sampleRate: sampleRate, channels: channels, bitsPerSample: bits, totalSamples: total,
                          comments: [])
    }

    static func readFLAC(_ file: UnsafeMutablePointer<FILE>) -> [(key: String, value: String)]? {
        while let header = readBytes(file, 4) {
            let type = header[0] & 0x7F
            let length = Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            if type == 4 {
                guard let body = readBytes(file, length) else { return nil }
                return parse(body[...])
            }
            if header[0] & 0x80 != 0 { return [] }
            guard fseek(file, length, SEEK_CUR) == 0 else { return nil }
        }
        return nil
    }

    /// Reassembles the second packet of the first logical stream.
    static func readOgg(_ file: UnsafeMutablePointer<FILE>) -> (kind: Kind, comments: [(key: String, value: String)])? {
        var serial: [UInt8]?
        var packets: [[UInt8]] = []
        var current: [UInt8] = []
        while packets.count < 2, let header = readBytes(file, 27), header[0..<4].elementsEqual("OggS".utf8) {
            let pageSerial = Array(header[14..<18])
            guard let table = readBytes(file, Int(header[26])),
                  let body = readBytes(file, table.reduce(0) { $0 + Int($1) }) else { return nil }
            if serial == nil { serial = pageSerial }
            guard pageSerial == serial else { continue }
            var offset = 0
            for lacing in table {
                current.append(contentsOf: body[offset..<offset + Int(lacing)])
                offset += Int(lacing)
                if lacing < 255 {
                    packets.append(current)
                    current = []
                    if packets.count == 2 { break }
                }
            }
            if current.count > limit { return nil }
        }
        guard packets.count == 2 else { return nil }
        let packet = packets[1]
        if packet.starts(with: [3] + Array("vorbis".utf8)) { return parse(packet[7...]).map { (.vorbis, $0) } }
        if packet.starts(with: Array("OpusTags".utf8)) { return parse(packet[8...]).map { (.opus, $0) } }
        // Ogg FLAC: the first packet is `\x7FFLAC` and STREAMINFO; the next ones are metadata blocks, the comments
        // first (the mapping's rule), each behind a block header.
        if packets[0].starts(with: [0x7F] + Array("FLAC".utf8)), packets[0].count >= 17 + 34, packet.count >= 4,
           packet[0] & 0x7F == 4 {
            let info = streamInfo(packets[0][17..<(17 + 34)])
            return parse(packet[4...]).map { (.oggFLAC(info), $0) }
        }
        return nil
    }

    /// vendor length + vendor, count, then length-prefixed `KEY=value` strings (little-endian).
    static func parse(_ data: ArraySlice<UInt8>) -> [(key: String, value: String)]? {
        var index = data.startIndex
        func u32() -> Int? {
            guard data.endIndex - index >= 4 else { return nil }
            let value = Int(data[index]) | Int(data[index + 1]) << 8 | Int(data[index + 2]) << 16
                | Int(data[index + 3]) << 24
            index += 4
            return value
        }
        guard let vendor = u32(), data.endIndex - index >= vendor else { return nil }
        index += vendor
        guard let count = u32() else { return nil }
        var pairs: [(key: String, value: String)] = []
        for _ in 0..<count {
            guard let length = u32(), data.endIndex - index >= length else { break }
            let entry = data[index..<index + length]
            index += length
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            pairs.append((ByteText.decode(entry[..<equals]), ByteText.decode(entry[(equals + 1)...])))
        }
        return pairs
    }
}
