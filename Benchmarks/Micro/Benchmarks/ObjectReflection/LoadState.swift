/// An enum whose cases carry objects: reflection has to ask which case is active.
enum LoadState {
  case idle
  case loading(Observer)
  case loaded(Node, size: Int)
}
