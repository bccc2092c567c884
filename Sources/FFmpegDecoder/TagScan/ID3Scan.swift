import CID3Tag
import Glibc
import PlayerCore

/// ID3 tags read as MPD reads them: parsed by libid3tag, the library MPD uses (its ID3v1 reader, ID3v2.2–2.4
/// frames, unsynchronisation, and its conversion of old frames: `TYER`/`TDAT`/`TIME` become one `TDRC`, `TORY`
/// becomes `TDOR`, ID3v2.3 genres `(17)` …), then mapped frame by frame in the order of MPD's `scan_id3_tag`
/// (`src/tag/Id3Scan.cxx`); found as `tag_id3_load` finds them (`src/tag/Id3Load.cxx`).
enum ID3Scan {
    /// `ID3_TAG_QUERYSIZE`.
    static let querySize = 10
    /// MPD 0.24.13 refuses to load a tag larger than 4 MiB.
    static let maximumSize = 4 * 1024 * 1024

    /// `scan_id3_tag`: the text frames MPD maps, in its order, then the `TXXX` frames (every one a pair, the
    /// MusicBrainz ones and `ALBUMARTISTSORT` a tag too) and MusicBrainz's `UFID`.
    static func scan(_ tag: UnsafeMutablePointer<id3_tag>, into result: inout TagScanResult) {
        for (frame, name) in textFrames {
            if frame == "COMM" { importComments(tag, into: &result) } else { importText(tag, frame, name, into: &result) }
        }
        importTXXX(tag, into: &result)
        importUFID(tag, into: &result)
    }

    /// The frames of `scan_id3_tag`, in its order (`COMM` in its place).
    static let textFrames: [(frame: String, name: String)] = [
        ("TPE1", "Artist"), ("TPE2", "AlbumArtist"), ("TSOP", "ArtistSort"), ("TSOA", "AlbumSort"),
        ("TSO2", "AlbumArtistSort"), ("TIT2", "Title"), ("TALB", "Album"), ("TRCK", "Track"), ("TDRC", "Date"),
        ("TDOR", "OriginalDate"), ("TCON", "Genre"), ("TCOM", "Composer"), ("TPE3", "Conductor"), ("TPE4", "Performer"),
        ("TIT1", "Grouping"), ("COMM", "Comment"), ("TPOS", "Disc"), ("TPUB", "Label"), ("TMOO", "Mood"),
        ("TSOT", "TitleSort"),
    ]

    /// `musicbrainz_txxx_tags` (`src/tag/Id3MusicBrainz.cxx`), compared case-sensitively.
    static let txxxNames: [String: String] = [
        "ALBUMARTISTSORT": "AlbumArtistSort", "MusicBrainz Artist Id": "MUSICBRAINZ_ARTISTID",
        "MusicBrainz Album Id": "MUSICBRAINZ_ALBUMID", "MusicBrainz Album Artist Id": "MUSICBRAINZ_ALBUMARTISTID",
        "MusicBrainz Track Id": "MUSICBRAINZ_TRACKID", "MusicBrainz Release Track Id": "MUSICBRAINZ_RELEASETRACKID",
        "MusicBrainz Work Id": "MUSICBRAINZ_WORKID", "MusicBrainz Release Group Id": "MUSICBRAINZ_RELEASEGROUPID",
    ]

    static func frames(_ tag: UnsafeMutablePointer<id3_tag>, _ id: String) -> [UnsafeMutablePointer<id3_frame>] {
        var frames: [UnsafeMutablePointer<id3_frame>] = []
        var index: UInt32 = 0
        while let frame = id3_tag_findframe(tag, id, index) {
            frames.append(frame)
            index += 1
        }
        return frames
    }

    /// `Id3String::FromUCS4`: libid3tag's UTF-8 of a UCS-4 string (nil only when it cannot allocate).
    static func utf8(_ ucs4: UnsafePointer<id3_ucs4_t>) -> [UInt8]? {
        guard let converted = id3_ucs4_utf8duplicate(ucs4) else { return nil }
        defer { free(converted) }
        return Array(UnsafeRawBufferPointer(start: converted, count: strlen(converted)))
    }

    /// `InvokeOnTag`: the value without bytes up to 0x20 at either end (`Strip`).
    static func invoke(_ name: String, _ ucs4: UnsafePointer<id3_ucs4_t>, into result: inout TagScanResult) {
        guard let bytes = utf8(ucs4) else { return }
        var slice = bytes[...]
        while let first = slice.first, first <= 0x20 { slice = slice.dropFirst() }
        while let last = slice.last, last <= 0x20 { slice = slice.dropLast() }
        result.tag(name, slice)
    }

    /// `tag_id3_import_text`: every frame with the id, each of its strings (a genre through `id3_genre_name`).
    static func importText(_ tag: UnsafeMutablePointer<id3_tag>, _ id: String, _ name: String,
                           into result: inout TagScanResult) {
        for frame in frames(tag, id) {
            guard frame.pointee.nfields == 2, let encoding = id3_frame_field(frame, 0),
                  encoding.pointee.type == ID3_FIELD_TYPE_TEXTENCODING, let list = id3_frame_field(frame, 1),
                  list.pointee.type == ID3_FIELD_TYPE_STRINGLIST else { continue }
            for index in 0..<id3_field_getnstrings(list) {
                guard var ucs4 = id3_field_getstrings(list, index) else { continue }
                if name == "Genre" { ucs4 = id3_genre_name(ucs4) }
                invoke(name, ucs4, into: &result)
            }
        }
    }

    /// `tag_id3_import_comment`: the full string (the fourth field) of every `COMM` frame.
    static func importComments(_ tag: UnsafeMutablePointer<id3_tag>, into result: inout TagScanResult) {
        for frame in frames(tag, "COMM") {
            guard frame.pointee.nfields == 4, let field = id3_frame_field(frame, 3),
                  let ucs4 = id3_field_getfullstring(field) else { continue }
            invoke("Comment", ucs4, into: &result)
        }
    }

    /// `tag_id3_getstring`.
    static func string(_ frame: UnsafeMutablePointer<id3_frame>, _ index: UInt32) -> [UInt8]? {
        guard let field = id3_frame_field(frame, index), let ucs4 = id3_field_getstring(field) else { return nil }
        return utf8(ucs4)
    }

    /// `tag_id3_import_musicbrainz`: each `TXXX` (description, value) is a pair; a known description a tag too.
    static func importTXXX(_ tag: UnsafeMutablePointer<id3_tag>, into result: inout TagScanResult) {
        for frame in frames(tag, "TXXX") {
            guard let description = string(frame, 1), let value = string(frame, 2) else { continue }
            result.pair(description, value)
            if let name = txxxNames[String(decoding: description, as: UTF8.self)] { result.tag(name, value) }
        }
    }

    /// `tag_id3_import_ufid`: the identifier of a `UFID` frame owned by `http://musicbrainz.org`.
    static func importUFID(_ tag: UnsafeMutablePointer<id3_tag>, into result: inout TagScanResult) {
        for frame in frames(tag, "UFID") {
            guard let owner = id3_frame_field(frame, 0), let name = id3_field_getlatin1(owner),
                  strcmp(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self), "http://musicbrainz.org") == 0,
                  let field = id3_frame_field(frame, 1) else { continue }
            var length: id3_length_t = 0
            guard let data = id3_field_getbinarydata(field, &length), length > 0 else { continue }
            result.tag("MUSICBRAINZ_TRACKID", UnsafeBufferPointer(start: data, count: Int(length)))
        }
    }

    /// `tag_id3_handle_apic`: the first `APIC` frame (an ID3v2.2 `PIC` as libid3tag converts it) whose MIME type is
    /// not `-->` (a link) and whose data is not empty; the MIME type as the frame spells it.
    static func picture(_ tag: UnsafeMutablePointer<id3_tag>) -> InspectedFile.Picture? {
        for frame in frames(tag, "APIC") {
            guard let mimeField = id3_frame_field(frame, 1) else { continue }
            let mime = id3_field_getlatin1(mimeField).map {
                String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen(UnsafeRawPointer($0)
                    .assumingMemoryBound(to: CChar.self))), as: UTF8.self)
            }
            if mime == "-->" { continue }
            guard let dataField = id3_frame_field(frame, 4), dataField.pointee.type == ID3_FIELD_TYPE_BINARYDATA
            else { continue }
            var length: id3_length_t = 0
            guard let data = id3_field_getbinarydata(dataField, &length), length > 0 else { continue }
            return InspectedFile.Picture(data: Array(UnsafeBufferPointer(start: data, count: Int(length))), mimeType: mime)
        }
        return nil
    }

    // MARK: - Finding the tag (`tag_id3_load`)

    /// A parsed tag, deleted with its owner.
    final class Tag {
        let pointer: UnsafeMutablePointer<id3_tag>
        init?(_ bytes: [UInt8]) {
            guard let pointer = bytes.withUnsafeBufferPointer({ id3_tag_parse($0.baseAddress, id3_length_t($0.count)) }) else {
                return nil
            }
            self.pointer = pointer
        }
        deinit { id3_tag_delete(pointer) }
        var isID3v1: Bool { id3_tag_options(pointer, 0, 0) & Int32(ID3_TAG_OPTION_ID3V1) != 0 }
    }

    /// `tag_id3_load`: a tag at the start (following `SEEK` frames), else an `id3 ` chunk of a RIFF or AIFF file,
    /// else one at the end (an ID3v2 tag with a footer, before an ID3v1 tag if there is one, else the ID3v1 tag).
    static func load(_ file: TagFile) -> Tag? {
        if let tag = fromBeginning(file) { return tag }
        if let tag = riffOrAIFF(file) { return tag }
        return fromEnd(file)
    }

    /// `id3_tag_query` on the bytes at `offset`: a tag's size (negative for an ID3v2 footer), or nil.
    static func query(_ file: TagFile, at offset: UInt64) -> Int? {
        guard let bytes = file.read(at: offset, count: querySize) else { return nil }
        return bytes.withUnsafeBufferPointer { id3_tag_query($0.baseAddress, id3_length_t($0.count)) }
    }

    /// MPD's `ReadId3Tag`: the size `id3_tag_query` finds at `offset`, then the tag of that size.
    static func readTag(_ file: TagFile, at offset: UInt64) -> (tag: Tag, size: Int)? {
        guard let size = query(file, at: offset), size > 0, size <= maximumSize,
              let bytes = file.read(at: offset, count: max(size, querySize)), let tag = Tag(Array(bytes[0..<size]))
        else { return nil }
        return (tag, size)
    }

    static func fromBeginning(_ file: TagFile) -> Tag? {
        guard var (tag, size) = readTag(file, at: 0), !tag.isID3v1 else { return nil }
        // After a tag is read the stream stands at its end; a `SEEK` frame counts from there.
        var end = UInt64(max(size, querySize))
        var hops = 0
        while hops < 64, let frame = id3_tag_findframe(tag.pointer, "SEEK", 0) {
            hops += 1
            let seek = id3_field_getint(id3_frame_field(frame, 0))
            guard seek >= 0, let next = readTag(file, at: end + UInt64(seek)), !next.tag.isID3v1 else { break }
            end += UInt64(seek) + UInt64(max(next.size, querySize))
            (tag, size) = next
        }
        return tag
    }

    /// `tag_id3_find_from_end`.
    static func fromEnd(_ file: TagFile) -> Tag? {
        let size = file.size
        guard size >= 128 else { return nil }
        var offset = size - 128
        let v1 = file.read(at: offset, count: 128).flatMap(Tag.init)
        if v1 == nil { offset = size }
        guard offset >= UInt64(querySize), let footer = query(file, at: offset - UInt64(querySize)), footer < 0,
              UInt64(-footer) <= offset else { return v1 }
        return readTag(file, at: offset - UInt64(-footer))?.tag ?? v1
    }

    /// `tag_id3_riff_aiff_load`: the `id3 `/`ID3 ` chunk of a RIFF file, else the `ID3 ` chunk of an AIFF one.
    static func riffOrAIFF(_ file: TagFile) -> Tag? {
        guard let chunk = riffChunk(file) ?? aiffChunk(file), chunk.size > 0, chunk.size <= maximumSize,
              let bytes = file.read(at: chunk.offset, count: chunk.size) else { return nil }
        return Tag(bytes)
    }

    static func riffChunk(_ file: TagFile) -> (offset: UInt64, size: Int)? {
        guard let header = file.read(at: 0, count: 12), header[0..<4].elementsEqual("RIFF".utf8),
              UInt64(header.littleEndian32(at: 4)) <= file.size else { return nil }
        return chunk(file, at: 12, bigEndian: false) { $0 == "id3 " || $0 == "ID3 " }
    }

    static func aiffChunk(_ file: TagFile) -> (offset: UInt64, size: Int)? {
        guard let header = file.read(at: 0, count: 12), header[0..<4].elementsEqual("FORM".utf8),
              UInt64(header.bigEndian32(at: 4)) <= file.size,
              header[8..<12].elementsEqual("AIFF".utf8) || header[8..<12].elementsEqual("AIFC".utf8) else { return nil }
        return chunk(file, at: 12, bigEndian: true) { $0 == "ID3 " }
    }

    /// The chunks from `offset` on, each skipped (with its pad byte) until one whose id `wanted` takes.
    static func chunk(_ file: TagFile, at offset: UInt64, bigEndian: Bool,
                      wanted: (String) -> Bool) -> (offset: UInt64, size: Int)? {
        var position = offset
        while let header = file.read(at: position, count: 8) {
            let size = UInt64(bigEndian ? header.bigEndian32(at: 4) : header.littleEndian32(at: 4))
            guard size <= UInt64(Int32.max) else { return nil }
            position += 8
            if wanted(String(decoding: header[0..<4], as: UTF8.self)) { return (position, Int(size)) }
            position += size + size % 2
        }
        return nil
    }
}
