/// What MPD's mpcdec plugin reports of a Musepack file: only its length (`mpcdec_get_file_duration`: libmpcdec's
/// `mpc_streaminfo_get_length`, the samples after the beginning silence over the sample rate, in seconds, made
/// whole milliseconds by truncation). Read here from an SV8 stream header (`MPCK`, then the `SH` packet); nil for
/// anything else (SV7 goes to libavformat).
enum MusepackScan {
    static let sampleRates = [44100, 48000, 37800, 32000]

    static func duration(path: String) -> Double? {
        guard let file = TagFile(path: path), let head = file.read(at: 0, count: 4), head.elementsEqual("MPCK".utf8)
        else { return nil }
        var offset: UInt64 = 4
        for _ in 0..<16 {
            guard let key = file.read(at: offset, count: 2), let (size, sizeBytes) = varint(file, at: offset + 2),
                  size >= UInt64(2 + sizeBytes) else { return nil }
            if key.elementsEqual("SH".utf8) {
                guard let body = file.read(at: offset + 2 + UInt64(sizeBytes), count: Int(min(size, 64)) - 2 - sizeBytes)
                else { return nil }
                return header(body)
            }
            offset += size
        }
        return nil
    }

    /// CRC (4 bytes), version (1), samples and beginning silence (varints), then the sample rate's index (3 bits).
    static func header(_ body: [UInt8]) -> Double? {
        var index = 5
        func number() -> UInt64? {
            var value: UInt64 = 0
            for _ in 0..<10 {
                guard index < body.count else { return nil }
                let byte = body[index]
                index += 1
                value = value << 7 | UInt64(byte & 0x7F)
                if byte & 0x80 == 0 { return value }
            }
            return nil
        }
        guard body.count > 5, body[4] == 8, let samples = number(), let silence = number(), index < body.count
        else { return nil }
        let rate = sampleRates[Int(body[index] >> 5) & 0x03]
        guard body[index] >> 5 < 4 else { return nil }
        let seconds = Double(Int64(bitPattern: samples &- silence)) / Double(rate)
        return (seconds * 1000).rounded(.towardZero) / 1000
    }

    /// An SV8 packet size: 7 bits a byte, high bit set on all but the last.
    static func varint(_ file: TagFile, at offset: UInt64) -> (UInt64, Int)? {
        var value: UInt64 = 0
        for count in 1...9 {
            guard let byte = file.read(at: offset + UInt64(count - 1), count: 1)?.first else { return nil }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return (value, count) }
        }
        return nil
    }
}
