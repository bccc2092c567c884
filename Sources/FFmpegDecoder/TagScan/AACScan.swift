/// What MPD's faad plugin reports of a raw AAC file (`faad_scan_stream`, `faad_song_duration`,
/// `src/decoder/plugins/FaadDecoderPlugin.cxx`): only its length, no format and no tags (those come from the generic
/// scan). Past an ID3v2 tag: an ADTS stream is measured by counting every frame (1,024 samples each, at the first
/// frame's rate), an ADIF one from its bit rate and the file's size. nil when the file starts with neither (MPD then
/// asks libfaad, and failing that FFmpeg).
enum AACScan {
    static let sampleRates: [UInt64] = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025,
                                        8000, 7350, 0, 0, 0]

    /// `adts_check_frame`: the frame's length, 0 when `data` does not start a frame.
    static func frameLength(_ data: ArraySlice<UInt8>) -> Int {
        let d = data.startIndex
        guard data[d] == 0xFF, data[d + 1] & 0xF6 == 0xF0 else { return 0 }
        return Int(data[d + 3] & 0x3) << 11 | Int(data[d + 4]) << 3 | Int(data[d + 5] >> 5)
    }

    /// The duration in seconds (whole milliseconds), or nil.
    static func duration(path: String) -> Double?? {
        guard let file = TagFile(path: path), let bytes = file.read(at: 0, count: Int(min(file.size, 1 << 30)))
        else { return nil }
        var start = 0
        if bytes.count >= 10, bytes[0..<3].elementsEqual("ID3".utf8) {
            start = (Int(bytes[6]) << 21 | Int(bytes[7]) << 14 | Int(bytes[8]) << 7 | Int(bytes[9])) + 10
        }
        guard start + 5 <= bytes.count else { return nil }
        if start + 8 <= bytes.count, frameLength(bytes[start...]) > 0 {
            var position = start
            var frames: UInt64 = 0
            var rate: UInt64 = 0
            while position + 8 <= bytes.count {
                guard bytes[position] == 0xFF else {
                    position = bytes[position...].firstIndex(of: 0xFF) ?? bytes.count
                    continue
                }
                let length = frameLength(bytes[position...])
                if length == 0 {
                    position += 1
                    continue
                }
                guard position + length <= bytes.count else { break }
                if frames == 0 {
                    rate = sampleRates[Int(bytes[position + 2] & 0x3C) >> 2]
                    if rate == 0 { break }
                }
                frames += 1
                position += length
            }
            guard rate > 0 else { return .some(nil) }
            return TagScanResult.duration(samples: frames * 1024, rate: rate)
        }
        if bytes[start..<(start + 4)].elementsEqual("ADIF".utf8) {
            let skip = bytes[start + 4] & 0x80 != 0 ? 9 : 0
            guard start + 8 + skip <= bytes.count else { return .some(nil) }
            let b = start + 4 + skip
            let bitRate = UInt64(bytes[b] & 0x0F) << 19 | UInt64(bytes[b + 1]) << 11 | UInt64(bytes[b + 2]) << 3
                | UInt64(bytes[b + 3] & 0xE0)
            guard bitRate / 8 > 0 else { return .some(nil) }
            return TagScanResult.duration(samples: file.size, rate: bitRate / 8)
        }
        return nil
    }
}
