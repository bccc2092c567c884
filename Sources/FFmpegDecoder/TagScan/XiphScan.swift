import MPDProtocol

/// Vorbis comments mapped as MPD maps them: FLAC and Ogg Vorbis through `ScanVorbisComment`
/// (`src/lib/xiph/ScanVorbisComment.cxx`), Opus through `ScanOneOpusTag` (`src/decoder/plugins/OpusTags.cxx`).
enum XiphScan {
    /// FLAC, Ogg Vorbis, Ogg FLAC: each `NAME=value` with a name is a pair; a known name a tag.
    static func vorbis(_ comments: [(key: String, value: String)], into result: inout TagScanResult) {
        for (key, value) in comments where !key.isEmpty {
            result.pair(key, value)
            if let name = TagNames.vorbis(key) { result.tag(name, value) }
        }
    }

    /// Opus: the same, but values of 4,096 bytes and more are left out (pictures among them), and MPD's names come
    /// before `xiph_tags`.
    static func opus(_ comments: [(key: String, value: String)], into result: inout TagScanResult) {
        for (key, value) in comments where !key.isEmpty && ByteText.encode(value.utf8).count < 4096 {
            result.pair(key, value)
            if let name = TagNames.opus(key) { result.tag(name, value) }
        }
    }
}
