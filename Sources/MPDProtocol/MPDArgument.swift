#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value decoded from one protocol argument, with MPD's parsing rules and error texts
/// (`src/protocol/ArgParser.cxx`). MPD uses `strtol`/`strtoul`/`strtof` and requires the whole argument to be
/// consumed, so we call the same C functions: leading blanks, a sign, `nan` and `inf` are accepted exactly when
/// MPD accepts them.
public protocol MPDArgument: Sendable {
    init(mpdArgument: String) throws(ACKError)
}

enum CNumber {
    /// `strtol(s, &end, 10)` → (value, consumed everything, consumed anything, rest starts with ':').
    static func strtol(_ s: String) -> (value: Int, whole: Bool, any: Bool, rest: Substring) {
        s.withCString { cString in
            var end: UnsafeMutablePointer<CChar>?
            let value = Glibc.strtol(cString, &end, 10)
            let consumed = end.map { $0 - UnsafeMutablePointer(mutating: cString) } ?? 0
            let restBytes = s.utf8.dropFirst(consumed)
            return (value, restBytes.isEmpty, consumed > 0, Substring(restBytes))
        }
    }

    static func strtoul(_ s: String) -> (value: UInt, whole: Bool, any: Bool) {
        s.withCString { cString in
            var end: UnsafeMutablePointer<CChar>?
            let value = Glibc.strtoul(cString, &end, 10)
            let consumed = end.map { $0 - UnsafeMutablePointer(mutating: cString) } ?? 0
            return (value, consumed == s.utf8.count, consumed > 0)
        }
    }

    static func strtof(_ s: String) -> (value: Float, whole: Bool, any: Bool) {
        s.withCString { cString in
            var end: UnsafeMutablePointer<CChar>?
            let value = Glibc.strtof(cString, &end)
            let consumed = end.map { $0 - UnsafeMutablePointer(mutating: cString) } ?? 0
            return (value, consumed == s.utf8.count, consumed > 0)
        }
    }
}

extension ACKError {
    /// `MakeArgError`: MPD formats into a 256-byte buffer, so the text is cut at 255 bytes (here at the last
    /// whole character within them).
    static func argument(_ message: String, _ value: String) -> ACKError {
        var text = "\(message): \(value)"
        while text.utf8.count > 255 { text.removeLast() }
        return ACKError(.arg, text)
    }
}

/// `ParseCommandArgU32`: any unsigned long, truncated to 32 bits (so `-1` is 4294967295, as in MPD).
extension UInt32: MPDArgument {
    public init(mpdArgument s: String) throws(ACKError) {
        let r = CNumber.strtoul(s)
        guard r.any, r.whole else { throw .argument("Integer expected", s) }
        self = UInt32(truncatingIfNeeded: r.value)
    }
}

/// `ParseCommandArgInt` over the full `int` range.
extension Int32: MPDArgument {
    public init(mpdArgument s: String) throws(ACKError) {
        self = Int32(try MPDInteger.parse(s, in: Int(Int32.min)...Int(Int32.max)))
    }
}

public enum MPDInteger {
    /// `ParseCommandArgInt(s, min, max)`.
    public static func parse(_ s: String, in bounds: ClosedRange<Int>) throws(ACKError) -> Int {
        let r = CNumber.strtol(s)
        guard r.any, r.whole else { throw .argument("Integer expected", s) }
        guard bounds.contains(r.value) else { throw .argument("Number too large", s) }
        return r.value
    }

    /// `ParseCommandArgUnsigned(s, max)`: strtoul semantics (a leading `-` wraps around and is then too large).
    public static func parseUnsigned(_ s: String, max: UInt = UInt(UInt32.max)) throws(ACKError) -> UInt {
        let r = CNumber.strtoul(s)
        guard r.any, r.whole else { throw .argument("Integer expected", s) }
        guard r.value <= max else { throw .argument("Number too large", s) }
        return r.value
    }
}

/// `ParseCommandArgBool`: only an integer 0 or 1.
extension Bool: MPDArgument {
    public init(mpdArgument s: String) throws(ACKError) {
        let r = CNumber.strtol(s)
        guard r.any, r.whole, r.value == 0 || r.value == 1 else { throw .argument("Boolean (0/1) expected", s) }
        self = r.value == 1
    }
}

/// `ParseCommandArgFloat`.
extension Float: MPDArgument {
    public init(mpdArgument s: String) throws(ACKError) {
        let r = CNumber.strtof(s)
        guard r.any, r.whole else { throw .argument("Float expected", s) }
        self = r.value
    }
}

/// A non-negative time in seconds (`ParseCommandArgSongTime`), as MPD holds it: whole milliseconds in 32 bits.
public struct SongTimeArgument: MPDArgument, Equatable {
    public var seconds: Double
    public init(mpdArgument s: String) throws(ACKError) {
        let value = try Float(mpdArgument: s)
        guard !(value < 0) else { throw .argument("Negative value not allowed", s) }
        seconds = MPDTime.seconds(MPDTime.milliseconds(value))
    }
}

/// A time in seconds that may be negative (`ParseCommandArgSignedSongTime`, for `seekcur`).
public struct SignedSongTimeArgument: MPDArgument, Equatable {
    public var seconds: Double
    public init(mpdArgument s: String) throws(ACKError) {
        seconds = MPDTime.seconds(MPDTime.signedMilliseconds(try Float(mpdArgument: s)))
    }
}

/// MPD keeps song times as whole milliseconds in 32 bits (`SongTime` unsigned, `SignedSongTime` signed,
/// `src/Chrono.hxx`), made from the parsed float by `rep(s * 1000)` — the product in `float`. For a value the type
/// cannot hold (`inf`, `nan`, `1e30`) that conversion is undefined in C++; the x86-64 MPD that Debian ships
/// truncates through a 64-bit conversion into the unsigned type, which gives 0 for those (`seek 0 inf` and
/// `seek 0 nan` restart the song) and the low 32 bits of other whole numbers (`seek 0 5000000` lands past the
/// end), and gives `Int32.min` into the signed type (`seekcur 3e14` seeks to 0). Checked against MPD 0.23.12;
/// here the same results are defined behaviour, so no input can trap.
public enum MPDTime {
    public static func milliseconds(_ seconds: Float) -> UInt32 {
        let product = seconds * 1000
        // ±2^63: where a 64-bit conversion stops being defined.
        guard product.isFinite, product > -9.223372e18, product < 9.223372e18 else { return 0 }
        return UInt32(truncatingIfNeeded: Int64(product))
    }

    public static func signedMilliseconds(_ seconds: Float) -> Int32 {
        let product = seconds * 1000
        guard product.isFinite, product >= -2_147_483_648, product < 2_147_483_648 else { return .min }
        return Int32(product)
    }

    public static func seconds<T: BinaryInteger>(_ milliseconds: T) -> Double { Double(milliseconds) / 1000 }
}

/// `START:END`, `START:`, `N`, or the legacy `-1` meaning everything (`src/protocol/RangeArg.hxx`).
public struct RangeArgument: MPDArgument, Hashable {
    public var start: Int
    /// `nil` means open-ended (up to the end of the list).
    public var end: Int?

    public init(start: Int, end: Int?) {
        self.start = start
        self.end = end
    }

    public static let all = RangeArgument(start: 0, end: nil)

    public var isOpenEnded: Bool { end == nil }
    public var isAll: Bool { start == 0 && end == nil }

    public init(mpdArgument s: String) throws(ACKError) {
        let first = CNumber.strtol(s)
        let restStartsWithColon = first.rest.first == ":"
        guard first.any, first.whole || restStartsWithColon else { throw .argument("Integer or range expected", s) }
        if first.value == -1 && first.whole {
            self = .all
            return
        }
        guard first.value >= 0 else { throw .argument("Number is negative", s) }
        guard first.value <= Int(Int32.max) else { throw .argument("Number too large", s) }
        guard restStartsWithColon else {
            self.init(start: first.value, end: first.value + 1)
            return
        }
        let tail = String(first.rest.dropFirst())
        let second = CNumber.strtol(tail)
        guard second.whole else { throw .argument("Integer or range expected", s) }
        guard second.any else {
            self.init(start: first.value, end: nil)
            return
        }
        guard second.value >= 0 else { throw .argument("Number is negative", s) }
        guard second.value <= Int(Int32.max) else { throw .argument("Number too large", s) }
        guard second.value >= first.value else { throw .argument("Malformed range", s) }
        self.init(start: first.value, end: second.value)
    }
}

/// An insert position: absolute, or relative to the current song (`+N` after it, `-N` before it). Resolving
/// needs the queue, so the number is kept as text and parsed with the bound the queue gives
/// (`src/command/PositionArg.cxx`).
public enum PositionArgument: MPDArgument, Hashable {
    case absolute(String)
    case afterCurrent(String)
    case beforeCurrent(String)

    public init(mpdArgument s: String) throws(ACKError) {
        if s.hasPrefix("+") {
            self = .afterCurrent(String(s.dropFirst()))
        } else if s.hasPrefix("-") {
            self = .beforeCurrent(String(s.dropFirst()))
        } else {
            self = .absolute(s)
        }
    }

    /// The absolute index, given the queue length and the current position (nil when nothing is current).
    public func resolve(queueLength: Int, current: Int?) throws(ACKError) -> Int {
        switch self {
        case .absolute(let s):
            return Int(try MPDInteger.parseUnsigned(s, max: UInt(queueLength)))
        case .afterCurrent(let s):
            guard let current else { throw ACKError(.playerSync, "No current song") }
            return current + 1 + Int(try MPDInteger.parseUnsigned(s, max: UInt(queueLength - current - 1)))
        case .beforeCurrent(let s):
            guard let current else { throw ACKError(.playerSync, "No current song") }
            return current - Int(try MPDInteger.parseUnsigned(s, max: UInt(current)))
        }
    }
}
