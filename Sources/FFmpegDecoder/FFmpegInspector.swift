import CFFmpeg
import CFFmpegShim
import PlayerCore

/// Reads tags, duration, audio format and the embedded picture of a file with libavformat (no decoding), like
/// MPD's FFmpeg plugin `ScanStream` (`src/decoder/plugins/FfmpegDecoderPlugin.cxx`, `FfmpegMetaData.cxx`).
public struct FFmpegInspector: AudioFileInspector {
    public let suffixes: Set<String>

    public init(suffixes: Set<String>? = nil) {
        self.suffixes = suffixes ?? Set(FFmpegCatalog.formats().suffixes)
    }

    public enum InspectError: Error, CustomStringConvertible {
        case open(path: String, message: String)
        case noAudio(path: String)
        public var description: String {
            switch self {
            case .open(let path, let message): "cannot open \(path): \(message)"
            case .noAudio(let path): "no audio stream in \(path)"
            }
        }
    }

    public func inspect(path: String, includePicture: Bool) throws -> InspectedFile {
        if !includePicture, let file = Self.inspectFLAC(path: path) { return file }
        return try inspectWithFFmpeg(path: path, includePicture: includePicture)
    }

    /// A FLAC file read without libavformat: what the scan needs is all in the metadata blocks, and parsing them
    /// here is many times cheaper than `avformat_open_input`, which probes every demuxer first. The result is the
    /// one `inspectWithFFmpeg` gives (FFmpeg's FLAC demuxer takes duration, rate, channels and bit depth from the
    /// same STREAMINFO, without a sample format); files it would treat differently (no total sample count, an ID3
    /// tag in front, anything malformed) go through libavformat.
    static func inspectFLAC(path: String) -> InspectedFile? {
        guard let header = VorbisComments.readFLACHeader(path: path), header.sampleRate > 0,
              header.totalSamples > 0 else { return nil }
        var result = InspectedFile()
        // The stream's time base is 1/sample rate; the same arithmetic as below, so the same rounding.
        result.duration = milliseconds(Double(header.totalSamples) * Double(1) / Double(header.sampleRate))
        result.audioFormat = "\(header.sampleRate):\(header.bitsPerSample):\(header.channels)"
        result.comments = header.comments
        for (key, value) in header.comments {
            guard let name = vorbisTagName(forKey: key) else { continue }
            append(name, value, to: &result.tags)
        }
        return result
    }

    /// Every format through libavformat (and FLAC when a picture is wanted).
    func inspectWithFFmpeg(path: String, includePicture: Bool) throws -> InspectedFile {
        av_log_set_level(AV_LOG_QUIET)
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        let status = avformat_open_input(&context, path, nil, nil)
        guard status >= 0, let format = context else {
            throw InspectError.open(path: path, message: Self.errorText(status))
        }
        defer { avformat_close_input(&context) }
        // Probing decodes frames and is most of the cost of a scan: skip it when the headers already say all we
        // need (FLAC, Ogg, MP4 and WAV usually do; MP3 without a Xing header does not).
        if !Self.headersSuffice(format) {
            let found = avformat_find_stream_info(format, nil)
            guard found >= 0 else { throw InspectError.open(path: path, message: Self.errorText(found)) }
        }

        var audio: UnsafeMutablePointer<AVStream>?
        var picture: InspectedFile.Picture?
        for index in 0..<Int(format.pointee.nb_streams) {
            guard let stream = format.pointee.streams[index] else { continue }
            let parameters = stream.pointee.codecpar.pointee
            if stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 {
                if includePicture, picture == nil, let data = stream.pointee.attached_pic.data,
                   stream.pointee.attached_pic.size > 0 {
                    let bytes = Array(UnsafeBufferPointer(start: data, count: Int(stream.pointee.attached_pic.size)))
                    picture = .init(data: bytes, mimeType: Self.mimeType(parameters.codec_id))
                }
                continue
            }
            if audio == nil, parameters.codec_type == AVMEDIA_TYPE_AUDIO { audio = stream }
        }
        guard let audio else { throw InspectError.noAudio(path: path) }

        var result = InspectedFile()
        let nopts = nosignal_av_nopts_value()
        if audio.pointee.duration != nopts, audio.pointee.duration > 0 {
            let base = audio.pointee.time_base
            result.duration = Self.milliseconds(Double(audio.pointee.duration) * Double(base.num) / Double(base.den))
        } else if format.pointee.duration != nopts, format.pointee.duration > 0 {
            result.duration = Self.milliseconds(Double(format.pointee.duration) / Double(AV_TIME_BASE))
        }
        result.audioFormat = Self.audioFormat(audio.pointee.codecpar.pointee)

        let container = format.pointee.iformat.map { String(cString: $0.pointee.name) } ?? ""
        if container == "flac" || container == "ogg", let comments = VorbisComments.read(path: path) {
            // Vorbis comments in file order, as MPD's FLAC/Vorbis/Opus plugins see them.
            result.comments = comments
            for (key, value) in comments {
                guard let name = Self.vorbisTagName(forKey: key) else { continue }
                Self.append(name, value, to: &result.tags)
            }
        } else {
            // Container metadata, then the audio stream's.
            var pairs: [(key: String, value: String)] = []
            for dictionary in [format.pointee.metadata, audio.pointee.metadata] {
                for (key, value) in Self.pairs(dictionary) { pairs.append((key, value)) }
            }
            // MPD reads mp3 tags with libid3tag, which reports no raw pairs; other formats show FFmpeg's.
            result.comments = container == "mp3" ? [] : pairs
            let id3Frames = container == "mp3" ? ID3TextFrames.read(path: path) : [:]
            if Self.apeContainers.contains(container) {
                // MPD reads APEv2 items itself (`tag_ape_scan2`), in the file's order.
                for pair in pairs {
                    guard let name = Self.apeTagName(forKey: pair.key) else { continue }
                    for part in Self.splitValues(pair.value) { Self.append(name, part, to: &result.tags) }
                }
            } else if container == "mp3", id3Frames[ID3TextFrames.taggingKey] == nil {
                // No ID3v2 tag, or one with nothing but pictures: MPD's MP3 decoder finds no tags, so its generic scan
                // reads an APEv2 tag if there is one (`tag_ape_scan2`); an ID3v1 tag, which libavformat reports, MPD
                // never reads.
                for (key, value) in APETags.read(path: path) {
                    guard let name = Self.apeTagName(forKey: key) else { continue }
                    for part in Self.splitValues(value) { Self.append(name, part, to: &result.tags) }
                }
            } else {
                // WAV and AIFF (an ID3 chunk too) go to MPD 0.24's FFmpeg plugin, which it prefers to sndfile since
                // 0.23.17: FFmpeg's order, not the ID3 scanner's.
                let table = container == "mp3" ? Self.id3Order : Self.ffmpegOrder
                for (name, keys) in table {
                    for key in keys {
                        for pair in pairs where pair.key.lowercased() == key {
                            for part in Self.splitValues(pair.value) { Self.append(name, part, to: &result.tags) }
                        }
                    }
                }
                if container == "mp3" {
                    Self.takeEveryValue(of: id3Frames, into: &result.tags)
                    Self.takeDate(of: id3Frames, into: &result.tags)
                    Self.takeGenres(of: id3Frames, into: &result.tags)
                    // `tag_id3_import_musicbrainz` goes through the TXXX frames in the file's order.
                    for pair in pairs {
                        guard let name = Self.txxxNames[pair.key.lowercased()] else { continue }
                        for part in Self.splitValues(pair.value) { Self.append(name, part, to: &result.tags) }
                    }
                }
            }
        }
        result.picture = picture
        return result
    }

    static func headersSuffice(_ format: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        let nopts = nosignal_av_nopts_value()
        var hasAudio = false
        for index in 0..<Int(format.pointee.nb_streams) {
            guard let stream = format.pointee.streams[index] else { return false }
            let p = stream.pointee.codecpar.pointee
            guard p.codec_type == AVMEDIA_TYPE_AUDIO else { continue }
            hasAudio = true
            guard p.sample_rate > 0, p.ch_layout.nb_channels > 0, p.format >= 0 || p.bits_per_raw_sample > 0
                    || p.codec_id == AV_CODEC_ID_OPUS || p.codec_id == AV_CODEC_ID_VORBIS
                    || p.codec_id == AV_CODEC_ID_AAC,
                  stream.pointee.duration != nopts && stream.pointee.duration > 0 else { return false }
        }
        return hasAudio
    }

    static func pairs(_ dictionary: OpaquePointer?) -> [(String, String)] {
        var pairs: [(String, String)] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while true {
            entry = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX)
            guard let current = entry else { break }
            pairs.append((String(cString: current.pointee.key), text(current.pointee.value)))
        }
        return pairs
    }

    /// A C string's bytes with MPD's repair of invalid UTF-8 (`Song.Tag.text`).
    static func text(_ cString: UnsafePointer<CChar>) -> String {
        Song.Tag.text(UnsafeRawBufferPointer(start: cString, count: strlen(cString)))
    }

    /// libavformat joins repeated Vorbis comments and ID3 multi-values with `;` (FFmpeg's `av_dict_set` with
    /// `AV_DICT_APPEND` is not used for them: each is a separate entry), so values are taken as they come,
    /// except the NUL-separated ID3v2.4 lists FFmpeg hands over as one string.
    static func splitValues(_ value: String) -> [String] {
        value.split(separator: "\0", omittingEmptySubsequences: true).map(String.init).filter { !$0.isEmpty }
    }

    /// MPD keeps durations in whole milliseconds (`SongTime::FromS` truncates).
    static func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded(.towardZero) / 1000 }

    /// MPD's tag names as of 0.24 (`src/tag/Names.cxx`: TitleSort, Mood, ShowMovement and
    /// MUSICBRAINZ_RELEASEGROUPID are new), in `TagType` order.
    static let mpdNames = ["Artist", "ArtistSort", "Album", "AlbumSort", "AlbumArtist", "AlbumArtistSort", "Title",
                           "TitleSort", "Track", "Name", "Genre", "Mood", "Date", "OriginalDate", "Composer",
                           "ComposerSort", "Performer", "Conductor", "Work", "Movement", "MovementNumber",
                           "ShowMovement", "Ensemble", "Location", "Grouping", "Comment", "Disc", "Label",
                           "MUSICBRAINZ_ARTISTID", "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ALBUMARTISTID",
                           "MUSICBRAINZ_TRACKID", "MUSICBRAINZ_RELEASETRACKID", "MUSICBRAINZ_WORKID",
                           "MUSICBRAINZ_RELEASEGROUPID"]

    /// The ID3 `TXXX` descriptions MPD reads (`tag/Id3MusicBrainz.cxx`), as FFmpeg names them.
    static let txxx: [(String, [String])] = [
        ("AlbumArtistSort", ["albumartistsort"]), ("MUSICBRAINZ_ARTISTID", ["musicbrainz artist id"]),
        ("MUSICBRAINZ_ALBUMID", ["musicbrainz album id"]),
        ("MUSICBRAINZ_ALBUMARTISTID", ["musicbrainz album artist id"]),
        ("MUSICBRAINZ_TRACKID", ["musicbrainz track id"]),
        ("MUSICBRAINZ_RELEASETRACKID", ["musicbrainz release track id"]),
        ("MUSICBRAINZ_WORKID", ["musicbrainz work id"]),
    ]

    /// MPD's FFmpeg plugin (`FfmpegScanDictionary`): every tag by its own name in `TagType` order, then FFmpeg's
    /// spellings (`ffmpeg_tags`), then the MusicBrainz `TXXX` names.
    static let ffmpegOrder: [(String, [String])] = mpdNames.map { ($0, [$0.lowercased()]) } + [
        ("AlbumArtist", ["album_artist"]), ("AlbumSort", ["album-sort"]), ("ArtistSort", ["artist-sort"]),
        ("AlbumArtistSort", ["sort_album_artist"]), ("AlbumSort", ["sort_album"]), ("ArtistSort", ["sort_artist"]),
    ] + txxx.filter { $0.0 != "AlbumArtistSort" }

    /// MPD's ID3 scanner order (`src/tag/Id3Scan.cxx:scan_id3_tag`), with the keys libavformat gives the frames.
    static let id3Order: [(String, [String])] = [
        ("Artist", ["artist"]), ("AlbumArtist", ["album_artist"]), ("ArtistSort", ["artist-sort"]),
        ("AlbumSort", ["album-sort"]), ("AlbumArtistSort", ["tso2"]), ("Title", ["title"]), ("Album", ["album"]),
        ("Track", ["track"]), ("Date", ["date"]), ("OriginalDate", ["tdor", "originaldate", "tory"]),
        ("Genre", ["genre"]),
        ("Composer", ["composer"]), ("Conductor", ["performer"]), ("Performer", ["tpe4"]),
        ("Grouping", ["tit1", "grouping"]), ("Comment", ["comment"]), ("Disc", ["disc"]), ("Label", ["publisher"]),
        ("Mood", ["tmoo"]), ("TitleSort", ["title-sort"]),
    ]

    /// The ID3 text frames whose values are taken as they are (no genre numbers, track or date forms), by tag.
    static let id3PlainTextFrames: [(frame: String, name: String)] = [
        ("TPE1", "Artist"), ("TPE2", "AlbumArtist"), ("TSOP", "ArtistSort"), ("TSOA", "AlbumSort"),
        ("TSO2", "AlbumArtistSort"), ("TIT2", "Title"), ("TALB", "Album"), ("TCOM", "Composer"), ("TPE3", "Conductor"),
        ("TPE4", "Performer"), ("TIT1", "Grouping"), ("TPUB", "Label"),
    ]

    /// libavformat keeps the first value of a text frame; MPD (`tag_id3_import_text_frame`) every one: a frame with
    /// several values replaces the tag's values, where its first one stood.
    static func takeEveryValue(of frames: [String: [String]], into tags: inout [Song.Tag]) {
        for (frame, name) in id3PlainTextFrames {
            guard let values = frames[frame], values.count > 1,
                  let position = tags.firstIndex(where: { $0.name == name }) else { continue }
            tags.removeAll { $0.name == name }
            tags.insert(contentsOf: values.map { Song.Tag(name, $0) }, at: min(position, tags.count))
        }
    }

    /// MPD's Date is the recording time (`TDRC`; libid3tag makes one of v2.3's `TYER`): libavformat also reports a
    /// release time (`TDRL`) as `date`, and the last one it read wins. With an ID3v2.4 `TDRC` its values are the Date,
    /// with neither `TDRC` nor `TYER` in a tag there is none.
    static func takeDate(of frames: [String: [String]], into tags: inout [Song.Tag]) {
        guard !frames.isEmpty, frames["TYER"] == nil else { return }
        let position = tags.firstIndex { $0.name == "Date" }
        tags.removeAll { $0.name == "Date" }
        guard let values = frames["TDRC"], let position else { return }
        tags.insert(contentsOf: values.map { Song.Tag("Date", $0) }, at: min(position, tags.count))
    }

    /// Genres as libid3tag (MPD's reader) gives them, replacing libavformat's: an ID3v2.3 `TCON` is read as that
    /// version wrote it (`(RX)(17)Rock` is Remix, Rock, Rock: `translate_TCON`), an ID3v2.4 one has its values as
    /// they are; then each value that is a number 0…147, `RX` or `CR` becomes its name (`id3_genre_name`), so
    /// `(13)` in ID3v2.4 stays `(13)`.
    static func takeGenres(of frames: [String: [String]], into tags: inout [Song.Tag]) {
        guard let values = frames["TCON"] else { return }
        let version3 = frames[ID3TextFrames.versionKey] == ["3"]
        let genres = (version3 ? values.flatMap(id3v23Genres) : values).map(id3GenreName).filter { !$0.isEmpty }
        let position = tags.firstIndex { $0.name == "Genre" } ?? tags.count
        tags.removeAll { $0.name == "Genre" }
        tags.insert(contentsOf: genres.map { Song.Tag("Genre", $0) }, at: min(position, tags.count))
    }

    /// The ID3v2.3 genre syntax: references in parentheses (`(17)`, `(RX)`, `(CR)`; `((` starts text), then text.
    static func id3v23Genres(_ text: String) -> [String] {
        var result: [String] = []
        var rest = Substring(text)
        while rest.hasPrefix("("), !rest.hasPrefix("(("), let close = rest.firstIndex(of: ")") {
            let reference = rest[rest.index(after: rest.startIndex)..<close]
            guard reference == "RX" || reference == "CR" || (!reference.isEmpty && reference.allSatisfy(\.isASCII)
                                                              && reference.allSatisfy(\.isNumber)) else { break }
            result.append(String(reference))
            rest = rest[rest.index(after: close)...]
        }
        if rest.hasPrefix("((") { rest = rest.dropFirst() }
        if !rest.isEmpty { result.append(String(rest)) }
        return result
    }

    /// `id3_genre_name`: a number of the ID3v1 list (0…147, libid3tag's spelling), `RX` and `CR` by name; anything
    /// else, larger numbers included, as it is.
    static func id3GenreName(_ value: String) -> String {
        if value == "RX" { return "Remix" }
        if value == "CR" { return "Cover" }
        if value.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(value), number < id3Genres.count {
            return id3Genres[number]
        }
        return value
    }

    /// libid3tag's ID3v1 genre names, numbers 0…147 (as MPD 0.23.12 shows them for `(0)` … `(147)`).
    static let id3Genres = [
        "Blues", "Classic Rock", "Country", "Dance", "Disco", "Funk", "Grunge", "Hip-Hop", "Jazz", "Metal",
        "New Age", "Oldies", "Other", "Pop", "R&B", "Rap", "Reggae", "Rock", "Techno", "Industrial", "Alternative",
        "Ska", "Death Metal", "Pranks", "Soundtrack", "Euro-Techno", "Ambient", "Trip-Hop", "Vocal", "Jazz+Funk",
        "Fusion", "Trance", "Classical", "Instrumental", "Acid", "House", "Game", "Sound Clip", "Gospel", "Noise",
        "AlternRock", "Bass", "Soul", "Punk", "Space", "Meditative", "Instrumental Pop", "Instrumental Rock",
        "Ethnic", "Gothic", "Darkwave", "Techno-Industrial", "Electronic", "Pop-Folk", "Eurodance", "Dream",
        "Southern Rock", "Comedy", "Cult", "Gangsta", "Top 40", "Christian Rap", "Pop/Funk", "Jungle",
        "Native American", "Cabaret", "New Wave", "Psychedelic", "Rave", "Showtunes", "Trailer", "Lo-Fi", "Tribal",
        "Acid Punk", "Acid Jazz", "Polka", "Retro", "Musical", "Rock & Roll", "Hard Rock", "Folk", "Folk/Rock",
        "National Folk", "Swing", "Fast-Fusion", "Bebob", "Latin", "Revival", "Celtic", "Bluegrass", "Avantgarde",
        "Gothic Rock", "Progressive Rock", "Psychedelic Rock", "Symphonic Rock", "Slow Rock", "Big Band", "Chorus",
        "Easy Listening", "Acoustic", "Humour", "Speech", "Chanson", "Opera", "Chamber Music", "Sonata", "Symphony",
        "Booty Bass", "Primus", "Porn Groove", "Satire", "Slow Jam", "Club", "Tango", "Samba", "Folklore", "Ballad",
        "Power Ballad", "Rhythmic Soul", "Freestyle", "Duet", "Punk Rock", "Drum Solo", "A Capella", "Euro-House",
        "Dance Hall", "Goa", "Drum & Bass", "Club-House", "Hardcore", "Terror", "Indie", "BritPop", "Negerpunk",
        "Polsk Punk", "Beat", "Christian Gangsta Rap", "Heavy Metal", "Black Metal", "Crossover",
        "Contemporary Christian", "Christian Rock", "Merengue", "Salsa", "Thrash Metal", "Anime", "JPop", "Synthpop"    ]

    /// The TXXX descriptions by the key FFmpeg gives them, to their tag.
    static let txxxNames: [String: String] = {
        var names: [String: String] = [:]
        for (name, keys) in txxx { for key in keys { names[key] = name } }
        return names
    }()

    /// Containers whose tags are APEv2 items, which MPD's own plugins read (WavPack, Monkey's Audio, Musepack, TAK).
    static let apeContainers: Set<String> = ["wv", "ape", "mpc", "mpc8", "tak"]

    /// `tag_ape_name_parse`: `Album Artist` and `Year` by MPD's APE table, any other item by MPD's own tag names
    /// (case-insensitively).
    static func apeTagName(forKey key: String) -> String? {
        switch key.lowercased() {
        case "album artist": return "AlbumArtist"
        case "year": return "Date"
        case let lower: return mpdNamesByLowercase[lower]
        }
    }

    static let mpdNamesByLowercase = Dictionary(uniqueKeysWithValues: mpdNames.map { ($0.lowercased(), $0) })

    /// Vorbis comment names (`src/lib/xiph/XiphTags.cxx` and MPD's own names).
    static let vorbisNames: [String: String] = {
        var table = Dictionary(uniqueKeysWithValues: mpdNames.map { ($0.lowercased(), $0) })
        table["tracknumber"] = "Track"
        table["discnumber"] = "Disc"
        table["album artist"] = "AlbumArtist"
        table["description"] = "Comment"
        return table
    }()

    public static func vorbisTagName(forKey key: String) -> String? { vorbisNames[key.lowercased()] }

    /// `AddTagHandler::OnTag`: Track and Disc lose leading zeroes and anything after the digits (`3/10` → `3`);
    /// empty values are dropped.
    static func append(_ name: String, _ value: String, to tags: inout [Song.Tag]) {
        var value = value
        if name == "Track" || name == "Disc" {
            let digits = value.drop { $0 == "0" }.prefix { $0.isASCII && $0.isNumber }
            value = String(digits)
        }
        guard !value.isEmpty else { return }
        tags.append(Song.Tag(name, value))
    }

    /// MPD's `samplerate:bits:channels`: integer formats give their (raw) bit depth, floating point `f`.
    static func audioFormat(_ p: AVCodecParameters) -> String? {
        guard p.sample_rate > 0 else { return nil }
        let channels = p.ch_layout.nb_channels
        let bits: String
        switch p.codec_id {
        case AV_CODEC_ID_MP3, AV_CODEC_ID_MP2:
            bits = "24" // MPD's libmad decoder delivers 24-bit samples
        case AV_CODEC_ID_OPUS:
            bits = "16" // MPD's libopus decoder delivers 16-bit samples
        case AV_CODEC_ID_VORBIS, AV_CODEC_ID_AAC:
            bits = "f" // decoded as floating point (known before any frame is decoded)
        case AV_CODEC_ID_WAVPACK where p.bits_per_raw_sample > 0 && AVSampleFormat(rawValue: p.format) != AV_SAMPLE_FMT_FLTP:
            // MPD's WavPack plugin: the file's whole bytes per sample (1: 8, 2: 16, 3: 24, 4: 32).
            bits = ["8", "16", "24", "32"][min(3, max(0, (Int(p.bits_per_raw_sample) + 7) / 8 - 1))]
        default:
            switch AVSampleFormat(rawValue: p.format) {
            case AV_SAMPLE_FMT_U8, AV_SAMPLE_FMT_U8P: bits = "8"
            case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P: bits = "16"
            case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P:
                bits = p.bits_per_raw_sample > 0 && p.bits_per_raw_sample <= 24 ? "24" : "32"
            case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_DBL, AV_SAMPLE_FMT_DBLP: bits = "f"
            default:
                if p.bits_per_raw_sample > 0 { bits = String(p.bits_per_raw_sample) } else { return nil }
            }
        }
        return "\(p.sample_rate):\(bits):\(channels)"
    }

    static func mimeType(_ codec: AVCodecID) -> String? {
        switch codec {
        case AV_CODEC_ID_MJPEG: "image/jpeg"
        case AV_CODEC_ID_PNG: "image/png"
        case AV_CODEC_ID_GIF: "image/gif"
        case AV_CODEC_ID_BMP: "image/bmp"
        case AV_CODEC_ID_WEBP: "image/webp"
        default: nil
        }
    }

    static func errorText(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
