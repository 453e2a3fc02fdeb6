import Foundation

/// A decoded JSON value. Objects keep no order (only read); output goes through `JSONOut`.
enum JSONValue: Decodable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    static func parse(_ data: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data)
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    var object: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    var array: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// Integral value truncated like JavaScript's Math.trunc; 0 for anything else.
    var intOr0: Int {
        if case .number(let d) = self, d.isFinite, abs(d) < 9.2e18 { return Int(d) }
        return 0
    }
}

/// JSON output with a fixed key order and JSON.stringify's escaping, so the bytes equal the
/// Node and Python gateways' (Foundation's JSONEncoder would reorder keys and escape "/").
indirect enum JSONOut: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSONOut])
    case object([(String, JSONOut)])

    var text: String {
        var out = ""
        self.write(into: &out)
        return out
    }

    func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .string(let s): JSONOut.writeString(s, into: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out += "," }
                JSONOut.writeString(key, into: &out)
                out += ":"
                value.write(into: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

func errorBody(type: String, message: String) -> String {
    JSONOut.object([
        ("type", .string("error")),
        ("error", .object([("type", .string(type)), ("message", .string(message))])),
    ]).text
}

func modelsBody(modelID: String) -> String {
    JSONOut.object([
        ("object", .string("list")),
        ("data", .array([.object([
            ("id", .string(modelID)),
            ("object", .string("model")),
            ("created", .int(0)),
            ("owned_by", .string("benchsuite")),
        ])])),
    ]).text
}
