import CID3Tag
import CMpg123
import Glibc
import PlayerCore

/// MP3 files scanned as MPD 0.24's first MP3 plugin scans them (`mpd_mpg123_scan_file`, `Scan` in
/// `src/decoder/plugins/Mpg123DecoderPlugin.cxx`): libmpg123 opens the file and finds its format (always 16-bit
/// samples), keeps the raw ID3v2 tag it passes at the start, which libid3tag parses (`ID3Scan`), and gives the
/// length in samples (from a Xing/LAME header, without the encoder's delay and padding, or estimated from the
/// file's size).
enum MP3Scan {
    /// `mpg123_init` once per process (a no-op since libmpg123 1.27, required before).
    private static let initialized: Bool = { mpg123_init() == Int32(MPG123_OK.rawValue) }()

    /// nil when libmpg123 cannot open the file or find its format (MPD then tries its next MP3 plugin).
    static func scan(path: String) -> TagScanResult? { scan(path: path, picture: nil) }

    /// With `picture`, the first picture of the ID3v2 tag is also handed over (`tag_id3_handle_apic`).
    static func scan(path: String, picture: ((InspectedFile.Picture?) -> Void)?) -> TagScanResult? {
        guard initialized else { return nil }
        var error: Int32 = 0
        guard let handle = mpg123_new(nil, &error) else { return nil }
        defer { mpg123_delete(handle) }
        // Not MPD's: libmpg123's warnings would go to our standard error.
        mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), Int(MPG123_QUIET.rawValue), 0)
        guard mpg123_open(handle, path) == Int32(MPG123_OK.rawValue) else { return nil }
        defer { mpg123_close(handle) }
        mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), Int(MPG123_STORE_RAW_ID3.rawValue), 0)
        mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), Int(MPG123_SKIP_ID3V2.rawValue), 0)

        var rate = 0
        var channels: Int32 = 0
        var encoding: Int32 = 0
        guard mpg123_getformat(handle, &rate, &channels, &encoding) == Int32(MPG123_OK.rawValue),
              encoding == Int32(MPG123_ENC_SIGNED_16.rawValue), rate > 0, channels > 0 else { return nil }
        var result = TagScanResult()
        result.audioFormat = "\(rate):16:\(channels)"

        var v1: UnsafeMutablePointer<UInt8>?
        var v1Size = 0
        var v2: UnsafeMutablePointer<UInt8>?
        var v2Size = 0
        if mpg123_id3_raw(handle, &v1, &v1Size, &v2, &v2Size) == Int32(MPG123_OK.rawValue), let v2, v2Size > 0,
           let tag = ID3Scan.Tag(Array(UnsafeBufferPointer(start: v2, count: v2Size))) {
            ID3Scan.scan(tag.pointer, into: &result)
            picture?(ID3Scan.picture(tag.pointer))
        }
        let samples = mpg123_length(handle)
        if samples >= 0 { result.duration = TagScanResult.duration(samples: UInt64(samples), rate: UInt64(rate)) }
        return result
    }
}
