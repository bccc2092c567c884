import Foundation
import PlayerCore
import ServerPorts

/// Playlist files inside the music directory, read as MPD's playlist plugins read them (`src/playlist/plugins/`):
/// `m3u` (`M3uPlaylistPlugin`, or `ExtM3uPlaylistPlugin` when the first line is `#EXTM3U`), `m3u8`, `pls`
/// (`PlsPlaylistPlugin`), `xspf` (`XspfPlaylistPlugin`), `asx` (`AsxPlaylistPlugin`), `rss` (`RssPlaylistPlugin`)
/// and `cue` (`CuePlaylistPlugin`, `src/playlist/cue/CueParser.cxx`). Each entry is a song with what the file says
/// of it (tags, duration, a CUE track's range); `translate` then resolves its URI as `playlist_check_translate_song`
/// does.
public enum MusicPlaylistFile {
    /// The suffixes MPD's playlist plugins claim in the music directory (those NoSignal reads).
    public static let suffixes: Set<String> = ["m3u", "m3u8", "pls", "xspf", "asx", "rss", "cue"]

    public static func suffix(of uri: String) -> String? {
        guard let dot = uri.lastIndex(of: "."), !uri[dot...].contains("/") else { return nil }
        let suffix = uri[uri.index(after: dot)...].lowercased()
        return suffixes.contains(suffix) ? suffix : nil
    }

    /// One entry as a plugin gives it: the URI as written, tags, duration, a CUE track's start and end (ms, 0: none).
    public struct Parsed: Equatable, Sendable {
        public var uri: String
        public var tags: [Song.Tag] = []
        public var duration: Double?
        public var startMS: Int = 0
        public var endMS: Int = 0

        public init(uri: String, tags: [Song.Tag] = [], duration: Double? = nil, startMS: Int = 0, endMS: Int = 0) {
            self.uri = uri
            self.tags = tags
            self.duration = duration
            self.startMS = startMS
            self.endMS = endMS
        }

        /// The range MPD prints (`PrintRange`): none when both are zero.
        public var range: Queue.ClosedRangeSeconds? {
            guard startMS > 0 || endMS > 0 else { return nil }
            return Queue.ClosedRangeSeconds(start: Double(startMS) / 1000, end: endMS > 0 ? Double(endMS) / 1000 : nil)
        }
    }

    /// The entries of a file with `suffix`, URIs as written.
    public static func parse(_ data: [UInt8], suffix: String) -> [Parsed] {
        switch suffix {
        case "pls": return pls(lines(data))
        case "xspf": return xspf(Song.Tag.text(data))
        case "asx": return asx(Song.Tag.text(data))
        case "rss": return rss(Song.Tag.text(data))
        case "cue": return cue(lines(data))
        default: return m3u(lines(data))
        }
    }

    /// Lines as MPD's `TextInputStream` gives them: a UTF-8 BOM at the start skipped, split at LF, one CR before it
    /// dropped, a line ending at its first NUL (a C string); an unterminated empty last line is no line. Text as
    /// `fix_utf8` repairs it.
    static func lines(_ data: [UInt8]) -> [Substring] {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        var result: [Substring] = []
        while !bytes.isEmpty {
            var line: ArraySlice<UInt8>
            if let newline = bytes.firstIndex(of: 0x0A) {
                line = bytes[..<newline]
                bytes = bytes[(newline + 1)...]
                if line.last == 0x0D { line = line.dropLast() }
            } else {
                line = bytes
                bytes = []
            }
            if let nul = line.firstIndex(of: 0) { line = line[..<nul] }
            result.append(Substring(Song.Tag.text(line)))
        }
        return result
    }

    /// `IsWhitespaceOrNull`: NUL, or a byte up to the space.
    static func isBlank(_ byte: UInt8) -> Bool { byte <= 0x20 }

    static func stripRight(_ text: Substring) -> Substring {
        var end = text.utf8.endIndex
        while end > text.utf8.startIndex, isBlank(text.utf8[text.utf8.index(before: end)]) {
            end = text.utf8.index(before: end)
        }
        return Substring(text.utf8[text.utf8.startIndex..<end])
    }

    static func stripLeft(_ text: Substring) -> Substring {
        Substring(text.utf8.drop { isBlank($0) })
    }

    static func strip(_ text: Substring) -> Substring { stripRight(stripLeft(text)) }

    /// m3u (`M3uPlaylist`): each line stripped, `#` lines and empty ones skipped. With `#EXTM3U` as the first line
    /// (after `StripRight`), `ExtM3uPlaylist`: lines stripped on the right, an `#EXTINF:` line gives the tag of the
    /// entries after it until the next `#EXTINF:` (`extm3u_parse_tag`), entries stripped on the left.
    static func m3u(_ all: [Substring]) -> [Parsed] {
        var songs: [Parsed] = []
        guard let first = all.first, stripRight(first) == "#EXTM3U" else {
            for raw in all {
                let line = strip(raw)
                guard !line.isEmpty, !line.hasPrefix("#") else { continue }
                songs.append(Parsed(uri: String(line)))
            }
            return songs
        }
        var tag: (tags: [Song.Tag], duration: Double?)?
        for raw in all.dropFirst() {
            let right = stripRight(raw)
            if right.hasPrefix("#EXTINF:") {
                tag = extInf(right.dropFirst("#EXTINF:".count))
                continue
            }
            let line = stripLeft(right)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            songs.append(Parsed(uri: String(line), tags: tag?.tags ?? [], duration: tag?.duration))
            // The tag moves into the song: the next entry starts without one.
            tag = nil
        }
        return songs
    }

    /// `extm3u_parse_tag`: `strtol` digits, then a comma; nothing when malformed or when it says nothing.
    static func extInf(_ text: Substring) -> (tags: [Song.Tag], duration: Double?)? {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count, bytes[index] == 0x20 || (bytes[index] >= 9 && bytes[index] <= 13) { index += 1 }
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var value = 0
        let digits = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            value = value.multipliedReportingOverflow(by: 10).partialValue &+ Int(bytes[index] - 0x30)
            index += 1
        }
        if index == digits { index = 0 }  // strtol read nothing: endptr is the start
        guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return nil }
        let duration = negative || value < 0 ? 0 : value
        let name = stripLeft(Substring(String(decoding: bytes[(index + 1)...], as: UTF8.self)))
        if name.isEmpty && duration == 0 { return nil }
        return (name.isEmpty ? [] : [Song.Tag("Name", String(name))], Double(duration))
    }

    /// pls (`ParsePls`): from the first line that is `[playlist]` (any case, stripped) to the next section; `NAME=VALUE`
    /// lines (both stripped; `;` comments) `NumberOfEntries`, `FileN`, `TitleN`, `LengthN` (any case), N from 1 to
    /// `NumberOfEntries` (65,536 at most; the entries before it sized by the largest N); no `NumberOfEntries`: no
    /// playlist. Each entry: its title as `Title`, a positive length as the duration.
    static func pls(_ all: [Substring]) -> [Parsed] {
        let maximum = 65536
        var index = 0
        while index < all.count, strip(all[index]).lowercased() != "[playlist]" { index += 1 }
        guard index < all.count else { return [] }
        var count = 0
        var entries: [(file: String, title: String, length: Int)] = []
        func slot(_ name: Substring, _ prefix: String) -> Int? {
            guard name.utf8.count >= prefix.utf8.count,
                  String(name.prefix(prefix.count)).lowercased() == prefix else { return nil }
            let n = fromChars(name.dropFirst(prefix.count), signed: false).value ?? 0
            guard n >= 1, n <= (count > 0 ? count : maximum) else { return nil }
            if entries.count < n { entries += Array(repeating: ("", "", -1), count: n - entries.count) }
            return n - 1
        }
        for raw in all[(index + 1)...] {
            let line = strip(raw)
            if line.isEmpty || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") { break }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let name = strip(line[..<equals])
            let value = strip(line[line.index(after: equals)...])
            if name.lowercased() == "numberofentries" {
                guard let n = parseUnsigned(value), n > 0 else { return [] }
                count = min(n, maximum)
                if entries.count > count { entries.removeLast(entries.count - count) }
                else { entries += Array(repeating: ("", "", -1), count: count - entries.count) }
            } else if let i = slot(name, "file") {
                entries[i].file = String(value)
            } else if let i = slot(name, "title") {
                entries[i].title = String(value)
            } else if let i = slot(name, "length") {
                if let length = fromChars(value, signed: true).value { entries[i].length = length }
            }
        }
        guard count > 0 else { return [] }
        return entries.map { entry in
            Parsed(uri: entry.file, tags: entry.title.isEmpty ? [] : [Song.Tag("Title", entry.title)],
                   duration: entry.length > 0 ? Double(entry.length) : nil)
        }
    }

    /// `std::from_chars` as `ParseIntegerTo` calls it: the leading digits (after a `-` when `signed`; never a `+`)
    /// as a 32-bit value, nil when there are none or they overflow; `whole` when they are all the text. MPD ignores
    /// the result of some calls, which then keep a value read from a prefix (`File1x` is entry 1).
    static func fromChars(_ text: Substring, signed: Bool) -> (value: Int?, whole: Bool) {
        var bytes = Substring(text).utf8[...]
        var negative = false
        if signed, bytes.first == UInt8(ascii: "-") {
            negative = true
            bytes = bytes.dropFirst()
        }
        let digits = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }
        guard !digits.isEmpty else { return (nil, false) }
        var value = 0
        for digit in digits {
            value = value * 10 + Int(digit - 0x30)
            if value > (signed ? Int(Int32.max) + 1 : Int(UInt32.max)) { return (nil, false) }
        }
        if negative { value = -value }
        if signed && value > Int(Int32.max) { return (nil, false) }
        return (value, digits.count == bytes.count)
    }

    /// `ParseIntegerTo` (unsigned) whose result counts: the whole text.
    static func parseUnsigned(_ text: Substring) -> Int? {
        let parsed = fromChars(text, signed: false)
        return parsed.whole ? parsed.value : nil
    }

    /// cue (`CueParser`): `FILE "name" WAVE|FLAC|MP3|AIFF` names the file of the tracks after it (another type
    /// ignores them); `TRACK NN AUDIO` starts a track (the header's tags, then `Track: NN`); `TITLE` is the album
    /// in the header and the title in a track, `PERFORMER` the album artist or the artist, `REM NAME VALUE` any tag
    /// MPD knows (any case); `INDEX` `MM:SS:FF` sets the track's start and ends the one before (once per track,
    /// after `INDEX 00` of a track that follows another).
    static func cue(_ all: [Substring]) -> [Parsed] {
        enum State { case header, wave, track, ignoreFile, ignoreTrack }
        var state = State.header
        var header: [Song.Tag] = []
        var trackTags: [Song.Tag] = []
        var filename = ""
        var current: Parsed?
        var previous: Parsed?
        var songs: [Parsed] = []
        var ignoreIndex = false
        func commit() {
            guard var song = current else { return }
            song.tags = trackTags
            if let previous { songs.append(previous) }
            previous = song
            current = nil
        }
        func add(_ name: String, _ rest: Substring, to tags: inout [Song.Tag]) {
            var rest = rest
            if let value = cueValue(&rest) { tags.append(Song.Tag(name, String(value))) }
        }
        for line in all {
            var rest = line
            guard let command = cueToken(&rest) else { continue }
            switch command {
            case "REM":
                guard state == .header || state == .track, let type = cueToken(&rest),
                      let name = cueTagName(type) else { break }
                if state == .header { add(name, rest, to: &header) } else { add(name, rest, to: &trackTags) }
            case "PERFORMER":
                if state == .header { add("AlbumArtist", rest, to: &header) }
                else if state == .track { add("Artist", rest, to: &trackTags) }
            case "TITLE":
                if state == .header { add("Album", rest, to: &header) }
                else if state == .track { add("Title", rest, to: &trackTags) }
            case "FILE":
                commit()
                guard let name = cueValue(&rest), let type = cueToken(&rest) else { break }
                guard ["WAVE", "FLAC", "MP3", "AIFF"].contains(type) else {
                    state = .ignoreFile
                    break
                }
                state = .wave
                filename = String(name)
            default:
                if state == .ignoreFile { break }
                if command == "TRACK" {
                    commit()
                    guard let number = cueToken(&rest), let type = cueToken(&rest) else { break }
                    guard type == "AUDIO" else {
                        state = .ignoreTrack
                        break
                    }
                    state = .track
                    ignoreIndex = false
                    current = Parsed(uri: filename)
                    trackTags = header + [Song.Tag("Track", String(number))]
                } else if state == .track, command == "INDEX", !ignoreIndex {
                    guard let number = cueToken(&rest), let position = cueToken(&rest),
                          let ms = cuePosition(position) else { break }
                    if previous != nil, previous!.startMS < ms { previous!.endMS = ms }
                    if current != nil { current!.startMS = ms }
                    if number != "00" || previous == nil { ignoreIndex = true }
                }
            }
        }
        commit()
        if let previous { songs.append(previous) }
        return songs
    }

    /// `cue_next_token`: the next word after blanks.
    static func cueToken(_ text: inout Substring) -> Substring? {
        text = stripLeft(text)
        guard !text.isEmpty else { return nil }
        let word = Substring(text.utf8.prefix { !isBlank($0) })
        text = Substring(text.utf8.dropFirst(word.utf8.count))
        return word
    }

    /// `cue_next_value`: a quoted string (up to the next `"`, or all the rest when none) or a word.
    static func cueValue(_ text: inout Substring) -> Substring? {
        text = stripLeft(text)
        guard !text.isEmpty else { return nil }
        guard text.hasPrefix("\"") else { return cueToken(&text) }
        let inner = text.dropFirst()
        guard let quote = inner.firstIndex(of: "\"") else {
            text = ""
            return inner
        }
        text = inner[inner.index(after: quote)...]
        return inner[..<quote]
    }

    /// `cue_parse_position`: `MM:SS:FF` (75 frames a second) in milliseconds; nil when malformed.
    static func cuePosition(_ text: Substring) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var numbers: [Int] = []
        for (index, part) in parts.enumerated() {
            let digits = part.utf8.prefix { $0 >= 0x30 && $0 <= 0x39 }
            // minutes and seconds must be digits up to the colon; the frames may be empty only when... never.
            guard !digits.isEmpty, digits.count == part.utf8.count else { return nil }
            _ = index
            numbers.append(digits.reduce(0) { ($0 &* 10 &+ Int($1 - 0x30)) & 0xFFFF_FFFF })
        }
        return (numbers[0] * 60000 + numbers[1] * 1000 + numbers[2] * 1000 / 75) & 0xFFFF_FFFF
    }

    /// `tag_name_parse_i`: MPD's tag names in any case (the canonical spelling).
    static func cueTagName(_ name: Substring) -> String? {
        let lower = name.lowercased()
        return cueTagNames.first { $0.lowercased() == lower }
    }

    static let cueTagNames = [
        "Artist", "ArtistSort", "Album", "AlbumSort", "AlbumArtist", "AlbumArtistSort", "Title", "TitleSort", "Track",
        "Name", "Genre", "Mood", "Date", "OriginalDate", "Composer", "ComposerSort", "Performer", "Conductor", "Work",
        "Ensemble", "Movement", "MovementNumber", "ShowMovement", "Location", "Grouping", "Comment", "Disc", "Label",
        "MUSICBRAINZ_ARTISTID", "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ALBUMARTISTID", "MUSICBRAINZ_TRACKID",
        "MUSICBRAINZ_RELEASETRACKID", "MUSICBRAINZ_WORKID", "MUSICBRAINZ_RELEASEGROUPID",
    ]

    /// xspf: each `<track>` with a `<location>`; `<title>`, `<creator>` (Artist), `<annotation>` (Comment), `<album>`
    /// and `<trackNum>` as tags in the file's order (`XspfPlaylistPlugin`: element names as written, no duration,
    /// and only the tags after the location: the plugin looks them up only once it has one).
    static func xspf(_ text: String) -> [Parsed] {
        entries(text, entry: "track", caseInsensitive: false) { name, attributes, value, song in
            guard name == "location" || !song.uri.isEmpty else { return }
            switch name {
            case "location": song.uri = value
            case "title": song.tags.append(Song.Tag("Title", value))
            case "creator": song.tags.append(Song.Tag("Artist", value))
            case "annotation": song.tags.append(Song.Tag("Comment", value))
            case "album": song.tags.append(Song.Tag("Album", value))
            case "trackNum": song.tags.append(Song.Tag("Track", value))
            default: break
            }
        }
    }

    /// asx: each `<entry>` with a `<ref href=…>`; `<author>` (Artist) and `<title>` as tags (`AsxPlaylistPlugin`:
    /// element and attribute names in any case).
    static func asx(_ text: String) -> [Parsed] {
        entries(text, entry: "entry", caseInsensitive: true) { name, attributes, value, song in
            switch name.lowercased() {
            case "ref": if let href = attribute("href", in: attributes) { song.uri = href }
            case "author": song.tags.append(Song.Tag("Artist", value))
            case "title": song.tags.append(Song.Tag("Title", value))
            default: break
            }
        }
    }

    /// rss: each `<item>` with an `<enclosure url=…>`; `<title>` as its title (`RssPlaylistPlugin`, names in any case).
    static func rss(_ text: String) -> [Parsed] {
        entries(text, entry: "item", caseInsensitive: true) { name, attributes, value, song in
            switch name.lowercased() {
            case "enclosure": if let url = attribute("url", in: attributes) { song.uri = url }
            case "title": song.tags.append(Song.Tag("Title", value))
            default: break
            }
        }
    }

    /// The entries of an XML playlist: for each `<ENTRY>` element, its child elements in order (name, attributes,
    /// text) handed to `read`; an entry without a URI is dropped, empty values add no tag.
    static func entries(_ text: String, entry: String, caseInsensitive: Bool,
                        _ read: (String, Substring, String, inout Parsed) -> Void) -> [Parsed] {
        let options: String.CompareOptions = caseInsensitive ? [.caseInsensitive] : []
        var songs: [Parsed] = []
        var rest = Substring(text)
        while let open = rest.range(of: "<\(entry)", options: options) {
            rest = rest[open.upperBound...]
            guard let first = rest.first, first == ">" || first == " " || first.isNewline || first == "\t",
                  let close = rest.range(of: "</\(entry)>", options: options) else { continue }
            var block = rest[rest.index(after: rest.startIndex)..<close.lowerBound]
            rest = rest[close.upperBound...]
            if first != ">", let end = block.firstIndex(of: ">") { block = block[block.index(after: end)...] }
            var song = Parsed(uri: "")
            while let lt = block.firstIndex(of: "<") {
                block = block[block.index(after: lt)...]
                guard let gt = block.firstIndex(of: ">") else { break }
                let tag = block[..<gt]
                block = block[block.index(after: gt)...]
                guard let head = tag.first, head != "/", head != "!", head != "?" else { continue }
                let selfClosing = tag.hasSuffix("/")
                let body = selfClosing ? tag.dropLast() : tag
                let name = String(body.prefix { !$0.isWhitespace })
                let attributes = body.dropFirst(name.count)
                var value = ""
                if !selfClosing, let end = block.range(of: "</\(name)>", options: options) {
                    value = unescapeXML(String(block[..<end.lowerBound]))
                    block = block[end.upperBound...]
                }
                let lower = name.lowercased()
                if value.isEmpty && lower != "ref" && lower != "enclosure" { continue }
                read(name, attributes, value, &song)
            }
            if !song.uri.isEmpty { songs.append(song) }
        }
        return songs
    }

    /// The value of attribute `name` (any case) in an element's attribute text.
    static func attribute(_ name: String, in attributes: Substring) -> String? {
        guard let key = attributes.range(of: name + "=", options: .caseInsensitive) else { return nil }
        let rest = attributes[key.upperBound...]
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        let value = rest.dropFirst().prefix { $0 != quote }
        return unescapeXML(String(value))
    }

    static func unescapeXML(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// `playlist_check_translate_song` up to the song's look-up: a relative URI (no `/` first, no `://`) is joined
    /// to the playlist's folder (`base`, "" for the root or a stored playlist), dot segments are squashed
    /// (`uri_squash_dot_segments`); then `LocateUri` says where the song is: `file://` and absolute paths inside
    /// the music directory are database songs, other paths are not loaded (only a local client may name files
    /// outside the database), URLs are URLs, relative URIs are database songs.
    public static func translate(_ written: String, base: String, musicDirectory: String) -> (uri: String, location: PlaylistEntry.Location)
    {
        var uri = written
        if !base.isEmpty, !uri.hasPrefix("/"), !uri.contains("://") { uri = uri.isEmpty ? base : base + "/" + uri }
        uri = squashDotSegments(uri)
        var path = uri
        if path.utf8.count >= 7, path.prefix(7).lowercased() == "file://" {
            path = String(path.dropFirst(7))
            guard path.hasPrefix("/") else { return (uri,  .unavailable) }
        } else if !path.hasPrefix("/") {
            if let colon = path.range(of: "://"), !path[..<colon.lowerBound].isEmpty {
                return (uri,  .url)
            }
            return (uri,  .database(uri))
        }
        let root = musicDirectory.hasSuffix("/") ? musicDirectory : musicDirectory + "/"
        guard path.hasPrefix(root) else { return (uri,  .unavailable) }
        return (uri,  .database(String(path.dropFirst(root.count))))
    }

    /// `uri_squash_dot_segments`: `.` segments dropped, each `..` removing the segment before it (or nothing, at the
    /// start), other segments (empty ones too) kept.
    static func squashDotSegments(_ uri: String) -> String {
        guard !uri.isEmpty else { return uri }
        let segments = uri.split(separator: "/", omittingEmptySubsequences: false).filter { $0 != "." }
        var result = ""
        var skips = 0
        // Backwards, as MPD: each kept segment but the last one of the path is followed by a slash.
        for (index, segment) in segments.reversed().enumerated() {
            if segment == ".." {
                skips += 1
            } else if skips > 0 {
                skips -= 1
            } else {
                result = String(segment) + (index != 0 ? "/" : "") + result
            }
        }
        return result
    }
}

extension MusicPlaylistFile {
    /// The suffixes of `EmbeddedCuePlaylistPlugin`: song files whose `CUESHEET` tag is a playlist.
    public static let embeddedCueSuffixes: Set<String> = ["flac", "mp3", "mp2", "mp4", "mp4a", "m4b", "ape", "wv",
                                                          "ogg", "oga"]

    /// The tracks of a cue sheet embedded in `file` (`EmbeddedCuePlaylist`): lines end at each CR or LF, and every
    /// track is of the file itself (its name, to be taken from its folder).
    public static func embeddedCue(_ sheet: String, file: String) -> [Parsed] {
        let name = file.split(separator: "/").last.map(String.init) ?? file
        let lines = sheet.utf8.split(omittingEmptySubsequences: false) { $0 == 0x0D || $0 == 0x0A }.map { Substring($0) }
        return cue(lines).map { track in
            var track = track
            track.uri = name
            return track
        }
    }

    /// The entries of a playlist whose folder is `base` ("" for the root and for stored playlists), translated.
    public static func entries(_ parsed: [Parsed], base: String, musicDirectory: String) -> [PlaylistEntry] {
        parsed.map { entry in
            let (uri, location) = translate(entry.uri, base: base, musicDirectory: musicDirectory)
            return PlaylistEntry(song: Song(uri: uri, tags: entry.tags, duration: entry.duration), range: entry.range,
                                 location: location)
        }
    }
}

extension MusicLibrary {
    /// The entries of the playlist file `uri` in the music directory, URIs translated, with what the file says of
    /// them; nil when `uri` is not such a file.
    public func playlistFile(uri: String) throws -> [PlaylistEntry]? {
        guard !uri.hasPrefix("/") else { return nil }
        // `PathTraitsUTF8::GetParent`: "." (no folder) for a file at the root.
        let base = uri.lastIndex(of: "/").map { String(uri[..<$0]) } ?? ""
        if let suffix = MusicPlaylistFile.suffix(of: uri) {
            guard let data = FileManager.default.contents(atPath: absolutePath(uri)) else { return nil }
            return MusicPlaylistFile.entries(MusicPlaylistFile.parse([UInt8](data), suffix: suffix), base: base,
                                             musicDirectory: musicDirectory)
        }
        guard let cuesheet = try embeddedCueSheet(uri: uri) else { return nil }
        return MusicPlaylistFile.entries(MusicPlaylistFile.embeddedCue(cuesheet, file: uri), base: base,
                                         musicDirectory: musicDirectory)
    }

    /// The first `CUESHEET` pair (any case) of a song file with a suffix `EmbeddedCuePlaylistPlugin` claims, as the
    /// tag scan reads it (the decoder plugin's pairs, then the generic APEv2/ID3 scan's); nil when there is none.
    func embeddedCueSheet(uri: String) throws -> String? {
        guard let dot = uri.lastIndex(of: "."), !uri[dot...].contains("/"),
              MusicPlaylistFile.embeddedCueSuffixes.contains(uri[uri.index(after: dot)...].lowercased()),
              FileManager.default.fileExists(atPath: absolutePath(uri)),
              let file = try? inspector.inspect(path: absolutePath(uri), includePicture: false)
        else { return nil }
        guard let sheet = file.comments.first(where: { $0.key.lowercased() == "cuesheet" })?.value, !sheet.isEmpty
        else { return nil }
        return sheet
    }
}
