import CFFmpeg

/// libavformat's metadata mapped as MPD's FFmpeg plugin maps it (`FfmpegScanDictionary`,
/// `src/decoder/plugins/FfmpegMetaData.cxx`): for each of MPD's tag names in `TagType` order, every entry of that
/// name (compared without case, as `av_dict_get` does), then FFmpeg's own spellings (`ffmpeg_tags`), then the
/// MusicBrainz `TXXX` names; and every entry as a pair. The container's dictionary first, then the audio stream's.
enum FFmpegDictionaryScan {
    /// `ffmpeg_tags`, in MPD's order.
    static let ffmpegNames: [(key: String, name: String)] = [
        ("album_artist", "AlbumArtist"), ("album-sort", "AlbumSort"), ("artist-sort", "ArtistSort"),
        ("title-sort", "TitleSort"), ("sort_album_artist", "AlbumArtistSort"), ("sort_album", "AlbumSort"),
        ("sort_artist", "ArtistSort"), ("sort_name", "TitleSort"),
    ]

    /// `musicbrainz_txxx_tags`, in MPD's order (compared without case here).
    static let musicBrainzNames: [(key: String, name: String)] = [
        ("ALBUMARTISTSORT", "AlbumArtistSort"), ("MusicBrainz Artist Id", "MUSICBRAINZ_ARTISTID"),
        ("MusicBrainz Album Id", "MUSICBRAINZ_ALBUMID"), ("MusicBrainz Album Artist Id", "MUSICBRAINZ_ALBUMARTISTID"),
        ("MusicBrainz Track Id", "MUSICBRAINZ_TRACKID"), ("MusicBrainz Release Track Id", "MUSICBRAINZ_RELEASETRACKID"),
        ("MusicBrainz Work Id", "MUSICBRAINZ_WORKID"), ("MusicBrainz Release Group Id", "MUSICBRAINZ_RELEASEGROUPID"),
    ]

    static let order: [(key: String, name: String)] = TagNames.all.map { ($0.lowercased(), $0) }
        + ffmpegNames.map { ($0.key.lowercased(), $0.name) } + musicBrainzNames.map { ($0.key.lowercased(), $0.name) }

    static func scan(_ dictionary: OpaquePointer?, into result: inout TagScanResult) {
        let entries = FFmpegInspector.rawPairs(dictionary)
        // `av_dict_get` compares ASCII letters without case, any other byte as it is.
        let lowered = entries.map { String(decoding: $0.key.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self) }
        for (key, name) in order {
            for (index, entry) in entries.enumerated() where lowered[index] == key { result.tag(name, entry.value) }
        }
        for entry in entries { result.pair(entry.key, entry.value) }
    }
}
