raise RuntimeError("the vendor library libbroken.so.1 is missing")
