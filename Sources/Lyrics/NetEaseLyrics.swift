import Foundation

/// NetEase Cloud Music's lyrics answers (`/api/song/lyric` and `/api/song/lyric/v1`, "lyric_new") as one `Lyrics`.
public enum NetEaseLyrics {
    /// How far apart (in milliseconds, inclusive) a translation or romanization line may start from the line it
    /// belongs to. NetEase writes the LRC fields in centiseconds and `yrc` in milliseconds, so the "same" time
    /// differs by a few milliseconds between them; 50 ms absorbs that without reaching a neighbouring line.
    public static let matchTolerance = 50

    /// Combines the fields of a lyrics answer (`lrc.lyric`, `tlyric.lyric`, `romalrc.lyric`, `yrc.lyric`,
    /// `ytlrc.lyric`, `yromalrc.lyric`; any may be nil or empty).
    ///
    /// - The lines come from `yrc` when at least one of its lines has word timings (credit lines alone do not
    ///   count), otherwise from `lrc` (`LRC.parse`).
    /// - The translation comes from `yrcTranslation` when the lines come from `yrc` and it has timed lines,
    ///   otherwise from `translation`; likewise the romanization from `yrcRomanization` or `romanization`. Each of
    ///   their lines with text goes to the line that starts nearest to it, at most `matchTolerance` away (ties go to
    ///   the earlier line; when several compete for one line, the nearest wins, then the first). An attached
    ///   translation replaces one the `lrc` itself carried as a same-stamp line.
    /// - `metadata` holds the `lrc`'s ID tags, plus `translator`: the `[by:…]` tag of the translation used (NetEase
    ///   puts the translator's name there, while the `lrc`'s own `by` is the lyrics' uploader).
    /// - Without any timed line, the `lrc`'s plain text (unsynced lyrics); with nothing at all, an empty `Lyrics`
    ///   (no lines, nil text), which the caller reads as "no lyrics".
    public static func combine(lrc: String?, translation: String?, romanization: String?, yrc: String?,
                               yrcTranslation: String?, yrcRomanization: String?) -> Lyrics {
        let original = LRC.parse(lrc ?? "")
        let wordLines = YRC.parse(yrc ?? "")
        let usesWordLines = wordLines.contains { $0.words != nil }
        var lines = usesWordLines ? wordLines : original.lines
        guard !lines.isEmpty else { return Lyrics(text: original.text, metadata: original.metadata) }
        var metadata = original.metadata
        let translations = synced(usesWordLines ? yrcTranslation : nil, otherwise: translation)
        attach(translations.lines, to: &lines, as: \.translation)
        if let translator = translations.metadata["by"] {
            metadata["translator"] = translator
        }
        let romanizations = synced(usesWordLines ? yrcRomanization : nil, otherwise: romanization)
        attach(romanizations.lines, to: &lines, as: \.romanization)
        return Lyrics(lines: lines, metadata: metadata)
    }

    /// Reads a whole lyrics answer (either endpoint). Never throws:
    /// `"nolyric": true` → `.instrumental`; `"uncollected": true` → `.uncollected`; otherwise the fields combined
    /// (`combine`), `.none` when that is empty. Malformed JSON, or anything but an object, → `.none`; a field of
    /// the wrong type is treated as missing.
    public static func lookup(fromJSON data: Data) -> LyricsLookup {
        guard let answer = try? JSONDecoder().decode(Answer.self, from: data) else { return .none }
        if answer.nolyric == true { return .instrumental }
        if answer.uncollected == true { return .uncollected }
        let lyrics = combine(lrc: answer.lrc, translation: answer.tlyric, romanization: answer.romalrc,
                             yrc: answer.yrc, yrcTranslation: answer.ytlrc, yrcRomanization: answer.yromalrc)
        return lyrics.isEmpty ? .none : .found(lyrics)
    }

    /// `preferred` parsed as LRC when it has timed lines, otherwise `fallback`.
    private static func synced(_ preferred: String?, otherwise fallback: String?) -> Lyrics {
        let parsed = LRC.parse(preferred ?? "")
        return parsed.isSynced ? parsed : LRC.parse(fallback ?? "")
    }

    /// Sets `field` of the line nearest to each of `extras` (see `combine`).
    private static func attach(_ extras: [Lyrics.Line], to lines: inout [Lyrics.Line],
                               as field: WritableKeyPath<Lyrics.Line, String?>) {
        var matches: [Int: (distance: Int, text: String)] = [:]
        for extra in extras where !extra.text.isEmpty {
            guard let (index, distance) = nearestLine(to: extra.start, in: lines), distance <= matchTolerance else {
                continue
            }
            if let match = matches[index], match.distance <= distance { continue }
            matches[index] = (distance, extra.text)
        }
        for (index, match) in matches {
            lines[index][keyPath: field] = match.text
        }
    }

    /// The first of the lines starting nearest to `time` (lines sorted by start), with its distance.
    private static func nearestLine(to time: Int, in lines: [Lyrics.Line]) -> (index: Int, distance: Int)? {
        let after = firstLine(startingAtOrAfter: time, in: lines)
        var nearest: (index: Int, distance: Int)?
        if after > 0 {
            let before = firstLine(startingAtOrAfter: lines[after - 1].start, in: lines)
            nearest = (before, time - lines[before].start)
        }
        if after < lines.count, nearest.map({ lines[after].start - time < $0.distance }) ?? true {
            nearest = (after, lines[after].start - time)
        }
        return nearest
    }

    /// The index of the first line with `start >= time` (binary search; `lines.count` when there is none).
    private static func firstLine(startingAtOrAfter time: Int, in lines: [Lyrics.Line]) -> Int {
        var low = 0
        var high = lines.count
        while low < high {
            let middle = low + (high - low) / 2
            if lines[middle].start < time {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// The fields of a lyrics answer that matter here, each decoded on its own so that one odd field does not
    /// lose the rest.
    private struct Answer: Decodable {
        var nolyric: Bool?
        var uncollected: Bool?
        var lrc: String?
        var tlyric: String?
        var romalrc: String?
        var yrc: String?
        var ytlrc: String?
        var yromalrc: String?

        private enum CodingKeys: String, CodingKey {
            case nolyric, uncollected, lrc, tlyric, romalrc, yrc, ytlrc, yromalrc
        }

        /// `{"version": n, "lyric": "…"}`.
        private struct Field: Decodable {
            var lyric: String?
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            nolyric = try? container.decodeIfPresent(Bool.self, forKey: .nolyric)
            uncollected = try? container.decodeIfPresent(Bool.self, forKey: .uncollected)
            func lyric(_ key: CodingKeys) -> String? {
                (try? container.decodeIfPresent(Field.self, forKey: key))?.lyric
            }
            lrc = lyric(.lrc)
            tlyric = lyric(.tlyric)
            romalrc = lyric(.romalrc)
            yrc = lyric(.yrc)
            ytlrc = lyric(.ytlrc)
            yromalrc = lyric(.yromalrc)
        }
    }
}
