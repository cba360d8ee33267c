print("lanes-desk")
