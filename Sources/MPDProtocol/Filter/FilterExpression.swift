/// A parsed MPD song filter (`src/song/Filter.cxx`, doc/protocol.rst "Filters"): what `find`, `search`,
/// `list`, `count`, `playlistfind` … select songs with. The parser keeps MPD's structure (it does not apply
/// MPD's `OptimizeSongFilter`), so a consumer sees what the client wrote; the optimisations MPD applies
/// (flattening nested `AND`s, folding `(!(T == 'v'))` into `(T != 'v')`) never change which songs match.
///
/// Matching rules a consumer (SQL translation, queue matching) must implement, taken from MPD 0.24:
/// * `.tag(.tag(T), m)`: true when at least one value of tag `T` matches `m` ignoring `m.negated`; the result
///   is then inverted when `m.negated`. So `!=` means "no value matches", not "some value differs".
/// * **Empty value**: when the song has no value for `T` (after the fallbacks below) and `m.value` is empty,
///   the filter matches (before negation): `(T == '')` means "tag absent", `(T != '')` "tag present".
/// * **Fallbacks** (`src/tag/Fallback.hxx`, see `TagName.filterChain`): when the song lacks `T` entirely, the first
///   fallback tag it has decides instead (`AlbumArtist` → `Artist`, `AlbumArtistSort` → `AlbumArtist` → `Artist`,
///   `*Sort` → base tag); the empty-value rule applies only to a song that has none of them.
/// * `.tag(.any, m)`: any value of any tag matches (no empty-value rule, no fallback).
/// * `.tag(.file, m)`: compared against the song URI, relative to the music directory.
/// * `StringMatch.foldCase`: MPD compares case-insensitively after ICU case folding and normalisation.
/// * `.regex`: a PCRE2 pattern compiled with `PCRE2_DOTALL | PCRE2_NO_AUTO_CAPTURE` (plus `PCRE2_CASELESS`
///   when `foldCase`) and searched unanchored in each value, so it matches anywhere unless it anchors itself.
///
/// Depth: a request line holds at most 8 KiB, so a tree is at most about 2,700 levels deep (a chain of `(!`);
/// a recursive consumer needs well under a megabyte of stack for that.
public indirect enum FilterExpression: Hashable, Sendable {
    /// `(TAG OP 'VALUE')`, `(any OP 'VALUE')`, `(file OP 'VALUE')` or a legacy `TYPE VALUE` pair.
    case tag(TagSelector, StringMatch)
    /// `(!EXPR)`.
    case not(FilterExpression)
    /// `(EXPR AND EXPR …)`, or several filter arguments (which MPD ANDs). `.and([])` matches every song: it is
    /// what `count group artist` (no filter at all) produces.
    case and([FilterExpression])
    /// `(base 'dir')` or legacy `base dir`: the song URI equals `dir` or lies below `dir/`
    /// (`uri_is_child_or_same`). An expression's value is not checked; a legacy pair's is (`Bad URI`).
    case base(String)
    /// `(modified-since 'TS')`: the file's modification time ≥ this UNIX time (seconds).
    case modifiedSince(Int64)
    /// `(added-since 'TS')` (0.24): the time the song entered the database ≥ this UNIX time (seconds).
    case addedSince(Int64)
    /// `(AudioFormat == 'R:B:C')` or `(AudioFormat =~ 'R:*:C')`.
    case audioFormat(AudioFormatMatch)
    /// `(prio >= N)` (0.24), N in 0…255: meaningful for queue commands only; database songs have priority 0.
    case priority(atLeast: Int)
    /// A legacy `AudioFormat VALUE` or `prio VALUE` pair. MPD turns it into a tag filter on an out-of-range tag
    /// type that no song carries and no empty-value rule reaches, so it silently matches no song at all.
    case nothing
}

/// What a string comparison looks at.
public enum TagSelector: Hashable, Sendable {
    case tag(TagName)
    /// `any`: every tag of the song.
    case any
    /// `file` (or the old spelling `filename`): the song URI.
    case file
}

/// One string comparison (MPD's `StringFilter`).
public struct StringMatch: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// `==`, `!=`, `eq_cs`, `eq_ci` …, or a `find`-family legacy pair.
        case equals
        /// `contains`, `!contains`, `contains_cs` …, or a `search`-family legacy pair (MPD issue #410: legacy
        /// pairs of `search`, `searchadd`, … are substring matches for compatibility with MPD ≤ 0.20).
        case contains
        /// `starts_with` (0.24), `!starts_with`, `starts_with_cs` …
        case startsWith
        /// `=~` / `!~`: a PCRE pattern. It is kept as text here; MPD compiles it while parsing, which
        /// `FilterParser`'s `validateRegex` hook lets the caller reproduce.
        case regex
    }

    /// The unescaped value. For `.regex`, the pattern.
    public var value: String
    public var kind: Kind
    /// `!=`, `!contains`, `!starts_with`, `!~`, `!eq_cs` …
    public var negated: Bool
    /// Case-insensitive: the command's default (`search` family true, `find` family false) unless an explicit
    /// `_cs`/`_ci` operator overrode it. For `.regex`, PCRE's caseless flag.
    public var foldCase: Bool

    public init(_ value: String, _ kind: Kind = .equals, negated: Bool = false, foldCase: Bool = false) {
        self.value = value
        self.kind = kind
        self.negated = negated
        self.foldCase = foldCase
    }
}

/// An audio-format pattern (`src/pcm/AudioParser.cxx` with mask): zero or `nil` fields are wildcards. MPD
/// matches it with `AudioFormat::MatchMask` whether it came from `==` or `=~`, and never matches a song whose
/// format is unknown. `==` simply refuses `*` while parsing.
public struct AudioFormatMatch: Hashable, Sendable {
    public enum SampleFormat: String, Hashable, Sendable, CaseIterable {
        case s8 = "8"
        case s16 = "16"
        /// `24` and the legacy spelling `24_3` both mean 24 bits in 32-bit samples.
        case s24 = "24"
        case s32 = "32"
        case float = "f"
        case dsd
    }

    /// Hz; 0 means any. A `dsdN` format sets it to N × 44100 / 8.
    public var sampleRate: UInt32
    /// `nil` means any.
    public var sampleFormat: SampleFormat?
    /// 1…8; 0 means any.
    public var channels: UInt8

    public init(sampleRate: UInt32, sampleFormat: SampleFormat?, channels: UInt8) {
        self.sampleRate = sampleRate
        self.sampleFormat = sampleFormat
        self.channels = channels
    }

    /// Whether every field is set (MPD prints such a pattern with `==`, otherwise with `=~`).
    public var isFullyDefined: Bool { sampleRate != 0 && sampleFormat != nil && channels != 0 }

    /// `AudioFormat::MatchMask`: every field the pattern sets must be equal.
    public func matches(sampleRate rate: UInt32, sampleFormat format: SampleFormat, channels count: UInt8) -> Bool {
        (sampleRate == 0 || sampleRate == rate) && (sampleFormat == nil || sampleFormat == format)
            && (channels == 0 || channels == count)
    }
}

/// `sort [-]KEY` of `find`, `search`, `findadd`, `searchadd`, `searchaddpl`, `playlistfind`, `playlistsearch`.
public struct SortSpec: Hashable, Sendable {
    public enum Key: Hashable, Sendable {
        /// A tag; `*Sort` tags fall back to their base tag when sorting.
        case tag(TagName)
        /// `Last-Modified`.
        case lastModified
        /// `Added` (0.24).
        case added
        /// `prio` (0.24): only `playlistfind` / `playlistsearch` accept it.
        case priority
    }

    public var key: Key
    /// A leading `-`.
    public var descending: Bool

    public init(_ key: Key, descending: Bool = false) {
        self.key = key
        self.descending = descending
    }
}

/// A filter with the trailing options of the command that carried it.
public struct FilterQuery: Hashable, Sendable {
    public var expression: FilterExpression
    public var sort: SortSpec?
    /// `window S:E`: applied after sorting. `nil` when absent (MPD then uses the whole range).
    public var window: RangeArgument?
    /// `position POS` of `findadd`/`searchadd` (may be relative) and `searchaddpl` (always `.absolute`, already
    /// checked to be an unsigned 32-bit number; `4294967295` means "append", as in MPD).
    public var position: PositionArgument?

    public init(
        expression: FilterExpression, sort: SortSpec? = nil, window: RangeArgument? = nil,
        position: PositionArgument? = nil
    ) {
        self.expression = expression
        self.sort = sort
        self.window = window
        self.position = position
    }
}

/// The commands whose arguments end in a filter, with the options MPD 0.24 strips from the end first
/// (`src/command/DatabaseCommands.cxx`, `QueueCommands.cxx`, `PlaylistCommands.cxx`).
public enum FilterCommand: String, Sendable, CaseIterable {
    /// `find FILTER [sort KEY] [window S:E]`, case-sensitive.
    case find
    /// `search FILTER [sort KEY] [window S:E]`, case-folding; legacy pairs are substring matches.
    case search
    /// `findadd FILTER [sort KEY] [window S:E] [position POS]`.
    case findadd
    /// `searchadd FILTER [sort KEY] [window S:E] [position POS]`.
    case searchadd
    /// `searchaddpl NAME FILTER [sort KEY] [window S:E] [position POS]` (pass the arguments after NAME).
    case searchaddpl
    /// `playlistfind FILTER [sort KEY] [window S:E]`; `sort prio` is allowed.
    case playlistfind
    /// `playlistsearch FILTER [sort KEY] [window S:E]`; `sort prio` is allowed.
    case playlistsearch
    /// `searchplaylist NAME FILTER [window S:E]` (pass the arguments after NAME). MPD only looks for `window`
    /// when exactly three arguments follow NAME, so a legacy pair cannot be combined with a window.
    case searchplaylist

    /// `search`-family commands fold case, which also makes legacy pairs substring matches.
    public var foldsCase: Bool {
        switch self {
        case .find, .findadd, .playlistfind: false
        case .search, .searchadd, .searchaddpl, .playlistsearch, .searchplaylist: true
        }
    }
}

/// `list TYPE [FILTER] [group TAG]…` (`handle_list`).
public struct ListQuery: Hashable, Sendable {
    /// The tag to list; `nil` for the deprecated `list file` (which takes no `group`).
    public var tag: TagName?
    /// The `group` tags in MPD's nesting order, outermost first: MPD strips `group` pairs from the end, so the
    /// last `group` argument is the outermost level. `tag` itself is the innermost level and is not included.
    public var groups: [TagName]
    /// `nil` when no filter was given.
    public var expression: FilterExpression?

    public init(tag: TagName?, groups: [TagName] = [], expression: FilterExpression? = nil) {
        self.tag = tag
        self.groups = groups
        self.expression = expression
    }
}

/// `count FILTER [group TAG]` / `searchcount …` (`handle_count_internal`).
public struct CountQuery: Equatable, Sendable {
    /// `.and([])` (every song) when no filter was given, as in `count group artist`.
    public var expression: FilterExpression
    public var group: TagName?

    public init(expression: FilterExpression, group: TagName? = nil) {
        self.expression = expression
        self.group = group
    }
}
