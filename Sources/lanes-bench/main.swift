print("lanes-bench")
