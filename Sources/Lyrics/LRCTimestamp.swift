/// LRC time stamps: the text between `[` and `]` (line stamps) or `<` and `>` (word stamps).
enum LRCTimestamp {
    /// The time written in `stamp`, in milliseconds, or nil when it is not a time stamp.
    ///
    /// Accepted: `mm:ss`, `mm:ss.f…` (a decimal fraction of any length; digits past milliseconds are dropped),
    /// `mm:ss:ff` (the colon form some editors write; `ff` is the same decimal fraction, usually centiseconds) and
    /// `hh:mm:ss.f…`. Minutes and seconds may exceed 59. Three fields without a decimal point are `mm:ss:ff`, not
    /// `hh:mm:ss`, because that is the form LRC editors actually produce. Spaces and tabs around the fields are
    /// allowed; negative and larger-than-`Lyrics.maximumTime` stamps are not times.
    static func milliseconds(_ stamp: Substring) -> Int? {
        let fields = Array(stamp.utf8).split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        let total: Int
        switch fields.count {
        case 2:
            guard let minutes = TextScanning.number(fields[0]), let seconds = secondsField(fields[1]) else { return nil }
            total = minutes * 60_000 + seconds
        case 3 where fields[2].contains(UInt8(ascii: ".")):
            guard let hours = TextScanning.number(fields[0]), let minutes = TextScanning.number(fields[1]),
                  let seconds = secondsField(fields[2]) else { return nil }
            total = hours * 3_600_000 + minutes * 60_000 + seconds
        case 3:
            guard let minutes = TextScanning.number(fields[0]), let seconds = TextScanning.number(fields[1]),
                  let fraction = fraction(fields[2]) else { return nil }
            total = minutes * 60_000 + seconds * 1000 + fraction
        default:
            return nil
        }
        // Every field saturates at 10^12, so `total` stays below 3.7 × 10^18: no overflow before this check.
        return total <= Lyrics.maximumTime ? total : nil
    }

    /// `ss` or `ss.f…` in milliseconds.
    private static func secondsField(_ field: ArraySlice<UInt8>) -> Int? {
        let parts = field.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard let seconds = TextScanning.number(parts[0]) else { return nil }
        guard parts.count == 2 else { return seconds * 1000 }
        guard let fraction = fraction(parts[1]) else { return nil }
        return seconds * 1000 + fraction
    }

    /// A decimal fraction of a second in milliseconds: "5" → 500, "05" → 50, "050" → 50, "0509" → 50.
    private static func fraction(_ field: ArraySlice<UInt8>) -> Int? {
        guard let digits = TextScanning.digits(field) else { return nil }
        var value = 0
        var scale = 100
        for digit in digits.prefix(3) {
            value += Int(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        return value
    }

    /// `milliseconds` as `mm:ss.xx`, rounded to the nearest centisecond (halves up); minutes are not wrapped into
    /// hours (`61:02.50`), and negative times are written as `00:00.00`.
    static func format(_ milliseconds: Int) -> String {
        let time = max(milliseconds, 0)
        let centiseconds = time / 10 + (time % 10 >= 5 ? 1 : 0)  // not (time + 5) / 10, which overflows at Int.max
        let minutes = centiseconds / 6000
        let seconds = centiseconds / 100 % 60
        return "\(twoDigits(minutes)):\(twoDigits(seconds)).\(twoDigits(centiseconds % 100))"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
