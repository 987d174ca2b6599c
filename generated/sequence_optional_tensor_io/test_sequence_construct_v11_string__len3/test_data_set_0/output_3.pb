2🙂 ümlautB
sequence_2