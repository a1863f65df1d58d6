// Group 15's baseline: the same job done with Foundation alone, as a tool
// without Stowage would: `Data(contentsOf:)`, `JSONSerialization`, one value.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: ColdStartFoundation FILE KEY")
    exit(64)
}
let data = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
print(object?[arguments[2]] as? Int ?? -1)
