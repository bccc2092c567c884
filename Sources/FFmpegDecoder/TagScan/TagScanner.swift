import PlayerCore

/// A file's tags read as MPD 0.24 reads them (`ScanFileTagsWithGeneric` and `TagScanFile`, `src/TagFile.cxx`,
/// `src/TagAny.cxx`): the file's suffix picks MPD's decoder plugins in their order, the first whose scan succeeds
/// gives the tags, the duration and the audio format; when it gave no tag, the generic scan adds what an APEv2 tag
/// at the end of the file has, or else an ID3 tag (`ScanGenericTags`). `readcomments` prints the plugin's pairs
/// and then the generic scan's, which runs there whatever the plugin found.
///
/// | suffix | MPD's plugin | read here by |
/// |---|---|---|
/// | mp3 | mpg123 (libid3tag for the ID3v2 tag) | `MP3Scan` (libmpg123, libid3tag) |
/// | flac | flac (libFLAC) | `VorbisComments` + `XiphScan.vorbis` |
/// | ogg, oga | vorbis, oggflac, opus, ffmpeg | `VorbisComments` + `XiphScan.vorbis`/`opus` |
/// | opus | opus | `VorbisComments` + `XiphScan.opus` |
/// | wv | wavpack (no tags: the generic APE scan) | FFmpeg for duration and format |
/// | mpc | mpcdec (duration only: the generic APE scan) | `MusepackScan` |
/// | aac | faad (duration only: the generic scan) | `AACScan` |
/// | anything else (m4a, wav, aiff, ape, …) | ffmpeg (`FfmpegScanDictionary`) | `FFmpegDictionaryScan` |
/// | any, after a plugin without tags | `tag_ape_scan2`, `tag_id3_scan` | `APEScan`, `ID3Scan` (libid3tag) |
enum TagScanner {
    static func suffix(of path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...]).lowercased()
    }

    static func inspect(path: String, includePicture: Bool) throws -> InspectedFile {
        let suffix = suffix(of: path)
        var plugin = TagScanResult()
        var file = InspectedFile()
        var id3Picture: InspectedFile.Picture?
        if suffix == "mp3", let scanned = MP3Scan.scan(path: path, picture: includePicture ? { id3Picture = $0 } : nil) {
            plugin = scanned
            file.picture = id3Picture
        } else if suffix == "aac", let length = AACScan.duration(path: path) {
            // faad: the length only; the tags (and a picture) come from the generic scan.
            plugin.duration = length
        } else if let xiph = xiphScan(path: path, suffix: suffix, includePicture: includePicture) {
            plugin = xiph.scan
            file = xiph.file
        } else {
            // wavpack and mpcdec find no tags, nor does libmad (MPD's MP3 plugin after libmpg123); the FFmpeg plugin's
            // duration is rounded to the millisecond, theirs are not.
            let plain = ["wv", "mpc", "mp3"].contains(suffix)
            let ffmpeg = try FFmpegInspector.inspectWithFFmpeg(path: path, includePicture: includePicture,
                                                               dictionaries: !plain)
            file = ffmpeg.file
            // Those plugins hand over no picture either (only the generic ID3 scan below may).
            if plain { file.picture = nil }
            plugin = ffmpeg.scan
            plugin.duration = suffix == "mpc" ? MusepackScan.duration(path: path) ?? file.duration : file.duration
            // The plugins that scan these report no audio format.
            plugin.audioFormat = suffix == "mpc" ? nil : file.audioFormat
        }
        var generic = TagScanResult()
        if let tagFile = TagFile(path: path), !APEScan.scan(tagFile, into: &generic),
           let tag = ID3Scan.load(tagFile) {
            ID3Scan.scan(tag.pointer, into: &generic)
            // `readpicture` takes the first picture: the plugin's, else the generic ID3 tag's.
            if includePicture, file.picture == nil { file.picture = ID3Scan.picture(tag.pointer) }
        }
        file.tags = plugin.tags.isEmpty ? generic.tags : plugin.tags
        file.genericTags = plugin.tags.isEmpty ? nil : generic.tags
        file.comments = plugin.pairs + generic.pairs
        file.hasPlaylist = (plugin.tags.isEmpty ? file.comments : plugin.pairs).contains {
            $0.key.lowercased() == "cuesheet"
        }
        file.duration = plugin.duration
        file.audioFormat = plugin.audioFormat
        return file
    }

    /// FLAC, Ogg and Opus files through MPD's Xiph plugins (for the suffixes they claim, when the stream is theirs);
    /// nil for the FFmpeg plugin to read.
    static func xiphScan(path: String, suffix: String, includePicture: Bool)
        -> (file: InspectedFile, scan: TagScanResult)? {
        guard ["flac", "ogg", "oga", "opus"].contains(suffix),
              let (kind, comments) = VorbisComments.readWithKind(path: path) else { return nil }
        var scan = TagScanResult()
        switch (kind, suffix) {
        case (.flac, "flac"), (.vorbis, "ogg"), (.vorbis, "oga"), (.oggFLAC, "ogg"), (.oggFLAC, "oga"):
            XiphScan.vorbis(comments, into: &scan)
        case (.opus, "opus"), (.opus, "ogg"), (.opus, "oga"):
            XiphScan.opus(comments, into: &scan)
        default:
            return nil
        }
        if case .oggFLAC(let info) = kind, info.sampleRate > 0 {
            // MPD's oggflac plugin: STREAMINFO's facts, a total of 0 samples (what an Ogg muxer that cannot seek
            // back writes) as a duration of 0.
            var file = InspectedFile()
            if includePicture {
                file.picture = try? FFmpegInspector.inspectWithFFmpeg(path: path, includePicture: true,
                                                                      dictionaries: false).file.picture
            }
            scan.duration = TagScanResult.duration(samples: UInt64(info.totalSamples), rate: UInt64(info.sampleRate))
            scan.audioFormat = "\(info.sampleRate):\(info.bitsPerSample):\(info.channels)"
            return (file, scan)
        }
        var file: InspectedFile
        if kind == .flac, !includePicture, let native = FFmpegInspector.inspectFLAC(path: path) {
            file = native
        } else {
            guard let ffmpeg = try? FFmpegInspector.inspectWithFFmpeg(path: path, includePicture: includePicture,
                                                                     dictionaries: false) else { return nil }
            file = ffmpeg.file
        }
        scan.duration = file.duration
        scan.audioFormat = file.audioFormat
        return (file, scan)
    }
}
