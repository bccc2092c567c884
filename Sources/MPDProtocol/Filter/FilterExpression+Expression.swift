extension FilterExpression {
    /// The filter written back as MPD 0.24 writes it (`SongFilter::ToExpression`): what a `filter` sticker is
    /// stored under, so that two spellings of one filter (`(!(Artist == 'x'))` and `(Artist != "x")`) share their
    /// stickers. Call it on an `optimized()` filter, as MPD does. Values are in double quotes with `"`, `'` and `\`
    /// escaped; the case-sensitivity of `eq_cs`/`eq_ci` … is not written (MPD's operators do not show it); a
    /// single-item `AND` is written as its item.
    public var mpdExpression: String {
        switch self {
        case .tag(let selector, let match):
            let name: String
            switch selector {
            case .tag(let tag): name = tag.mpdName
            case .any: name = "any"
            case .file: name = "file"
            }
            return "(\(name) \(match.mpdOperator) \"\(Self.escaped(match.value))\")"
        case .not(let inner):
            return "(!" + inner.mpdExpression + ")"
        case .and(let items):
            if items.count == 1 { return items[0].mpdExpression }
            return "(" + items.map(\.mpdExpression).joined(separator: " AND ") + ")"
        case .base(let directory):
            return "(base \"\(Self.escaped(directory))\")"
        case .modifiedSince(let time):
            return "(modified-since \"\(Self.iso8601(time))\")"
        case .addedSince(let time):
            return "(added-since \"\(Self.iso8601(time))\")"
        case .audioFormat(let format):
            return "(AudioFormat \(format.isFullyDefined ? "==" : "=~") \"\(format.mpdDescription)\")"
        case .priority(let value):
            return "(prio >= \(value))"
        case .nothing:
            return "(nothing)"
        }
    }

    /// `EscapeFilterString`.
    static func escaped(_ value: String) -> String {
        guard value.contains(where: { $0 == "\"" || $0 == "'" || $0 == "\\" }) else { return value }
        var result = ""
        for character in value {
            if character == "\"" || character == "'" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// `FormatISO8601`: `2020-01-02T03:04:05Z`.
    static func iso8601(_ unix: Int64) -> String {
        var response = Response()
        response.addTime("t", unix: unix)
        return String(decoding: response.bytes.dropFirst(3).dropLast(), as: UTF8.self)
    }
}

extension StringMatch {
    /// `StringFilter::GetOperator`.
    var mpdOperator: String {
        switch kind {
        case .regex: negated ? "!~" : "=~"
        case .contains: negated ? "!contains" : "contains"
        case .startsWith: negated ? "!starts_with" : "starts_with"
        case .equals: negated ? "!=" : "=="
        }
    }
}

extension AudioFormatMatch {
    /// `ToString(AudioFormat)` with the mask's wildcards as `*`: `44100:16:2`, `*:24:*`, `dsd64:2`.
    public var mpdDescription: String {
        var text: String
        if sampleFormat == .dsd, sampleRate > 0, sampleRate % 44100 == 0 {
            text = "dsd\(sampleRate * 8 / 44100):"
        } else {
            text = (sampleRate > 0 ? String(sampleRate) : "*") + ":" + (sampleFormat?.rawValue ?? "*") + ":"
        }
        return text + (channels > 0 ? String(channels) : "*")
    }
}
