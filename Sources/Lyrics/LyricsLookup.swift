/// The outcome of asking a source for a song's lyrics.
///
/// NetEase tells two kinds of "no lyrics" apart: the song is instrumental (`nolyric`), or nobody has submitted
/// lyrics yet (`uncollected`). `none` is every other absence (nothing found, an error, an unreadable answer).
///
/// JSON: an object with a `status` of `"found"`, `"instrumental"`, `"uncollected"` or `"none"`, and for `found`
/// the lyrics under `lyrics`, e.g. `{"status":"found","lyrics":{"lines":[…],"metadata":{}}}`. A flat status field
/// is easier for a web page to switch on than Swift's default enum encoding (`{"found":{"_0":…}}`).
public enum LyricsLookup: Sendable, Equatable, Codable {
    case found(Lyrics)
    case instrumental
    case uncollected
    case none

    private enum CodingKeys: String, CodingKey {
        case status, lyrics
    }

    private enum Status: String, Codable {
        case found, instrumental, uncollected, none
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Status.self, forKey: .status) {
        case .found: self = .found(try container.decode(Lyrics.self, forKey: .lyrics))
        case .instrumental: self = .instrumental
        case .uncollected: self = .uncollected
        case .none: self = .none
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .found(let lyrics):
            try container.encode(Status.found, forKey: .status)
            try container.encode(lyrics, forKey: .lyrics)
        case .instrumental: try container.encode(Status.instrumental, forKey: .status)
        case .uncollected: try container.encode(Status.uncollected, forKey: .status)
        case .none: try container.encode(Status.none, forKey: .status)
        }
    }
}
