/// MPD 0.24's tag names (`tag_item_names`, `src/tag/Names.cxx`) in `TagType` order, which is the order in which
/// `FfmpegScanDictionary` and `ScanVorbisComment` try them.
enum TagNames {
    static let all = ["Artist", "ArtistSort", "Album", "AlbumSort", "AlbumArtist", "AlbumArtistSort", "Title",
                      "TitleSort", "Track", "Name", "Genre", "Mood", "Date", "OriginalDate", "Composer",
                      "ComposerSort", "Performer", "Conductor", "Work", "Movement", "MovementNumber",
                      "ShowMovement", "Ensemble", "Location", "Grouping", "Comment", "Disc", "Label",
                      "MUSICBRAINZ_ARTISTID", "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ALBUMARTISTID",
                      "MUSICBRAINZ_TRACKID", "MUSICBRAINZ_RELEASETRACKID", "MUSICBRAINZ_WORKID",
                      "MUSICBRAINZ_RELEASEGROUPID"]

    /// `tag_name_parse_i`.
    static let byLowercase = Dictionary(uniqueKeysWithValues: all.map { ($0.lowercased(), $0) })

    /// `xiph_tags` (`src/lib/xiph/XiphTags.cxx`), case-insensitive.
    static let xiph: [String: String] = [
        "tracknumber": "Track", "discnumber": "Disc", "description": "Comment", "movementname": "Movement",
        "movement": "MovementNumber",
    ]

    /// `ScanVorbisComment` (FLAC, Ogg Vorbis, Ogg FLAC): `xiph_tags` first, then MPD's names.
    static func vorbis(_ key: String) -> String? {
        let lower = key.lowercased()
        return xiph[lower] ?? byLowercase[lower]
    }

    /// `ParseOpusTagName`: MPD's names first, then `xiph_tags` (so `MOVEMENT` is Movement in Opus files and
    /// MovementNumber in Vorbis and FLAC ones).
    static func opus(_ key: String) -> String? {
        let lower = key.lowercased()
        return byLowercase[lower] ?? xiph[lower]
    }
}
