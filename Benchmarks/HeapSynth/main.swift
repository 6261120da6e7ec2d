print("heap-synth")
