// placeholder: the binding is written next
