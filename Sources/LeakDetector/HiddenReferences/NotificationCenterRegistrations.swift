import CLeakRuntime
import FoundationEssentials
import HeapGraph

/// The blocks NotificationCenter keeps for `addObserver(forName:object:queue:using:)`.
///
/// The centre keeps them in `registrar`, a `Mutex` of dictionaries keyed by name, then by the
/// observed object's identifier, then by the registration's key; the compiler describes a
/// `Mutex` field to reflection as `()` on Linux, so this reader reads the dictionary that
/// follows the mutex's lock word. The token `addObserver` returns holds no reference, only the
/// registration's name, object identifier and key; the block it registered is its edge here,
/// labelled `registration`, because the token is what keeps the registration (and everything
/// the block captures) alive until `removeObserver(token)`: a token stored in an object its
/// block captures is the classic observer retain cycle.
///
/// ```text
/// LeakTestSupport.HitCounter.token -> (extension in Foundation):FoundationEssentials.NotificationCenter._NSNotificationObserverToken (strong)
/// (extension in Foundation):FoundationEssentials.NotificationCenter._NSNotificationObserverToken.registration -> closure #1 in closure #2 in … (strong)
/// ```
struct NotificationCenterRegistrations {
  static let centerTypeName = "FoundationEssentials.NotificationCenter"
  static let tokenTypeName = "(extension in Foundation):FoundationEssentials.NotificationCenter._NSNotificationObserverToken"

  var reflector: RuntimeReflector

  /// The registered blocks: `registrar["name"][nil].storage[0]`.
  func references(ofCenter center: UInt) -> [RawReference] {
    guard let registrar = reflector.storedPropertyOffset(named: "registrar", ofObjectAt: center) else { return [] }
    return reflector.referencesOfCollection(heldAt: center &+ UInt(registrar) &+ FoundationLayout.Mutex.value).map { reference in
      var reference = reference
      reference.label = "registrar" + reference.label
      return reference
    }
  }

  /// The block the token's registration keeps in the default centre, labelled `registration`.
  func references(ofToken token: UInt) -> [RawReference] {
    // The default centre is this process's: a memory image's cannot be asked for.
    guard !cleak_reads_memory_image(),
      let field = reflector.storedPropertyOffset(named: "token", ofObjectAt: token).map({ token &+ UInt($0) }),
      let key = MemoryReader.readWord(at: field &+ FoundationLayout.ObserverToken.key),
      let objectID = MemoryReader.readWord(at: field &+ FoundationLayout.ObserverToken.objectID)
    else { return [] }
    let name = RuntimeReflector.State.stringContents(at: field &+ FoundationLayout.ObserverToken.name).map(doubleQuoted) ?? "nil"
    let entry = "registrar[\(name)][\(objectID == 0 ? "nil" : "0x" + String(objectID, radix: 16))].storage[\(key)]"
    let center = UInt(bitPattern: Unmanaged.passUnretained(NotificationCenter.default).toOpaque())
    return references(ofCenter: center).filter { $0.label == entry }.map { reference in
      var reference = reference
      reference.label = "registration"
      reference.retainsTarget = false  // the centre's retain, counted for the centre
      return reference
    }
  }
}
